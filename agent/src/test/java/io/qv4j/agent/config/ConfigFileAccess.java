package io.qv4j.agent.config;

/** Rules from config-file text, for tests in other packages. */
public final class ConfigFileAccess {

    private ConfigFileAccess() {
    }

    public static Rules rules(String text) throws OptionException {
        return ConfigFile.parse("test.properties", text).rules();
    }
}
