package io.qv4j.agent.config;

import java.util.List;

/**
 * Everything the user configured.
 *
 * @param options    the merged options
 * @param rules      the rules of the config file
 * @param ignoredEnv {@code QV_*} environment variables that name no option (said once under {@code verbose})
 */
public record Config(Options options, Rules rules, List<String> ignoredEnv) {
}
