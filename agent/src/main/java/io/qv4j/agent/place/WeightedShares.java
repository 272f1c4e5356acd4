package io.qv4j.agent.place;

import io.qv4j.agent.config.Rule;
import io.qv4j.agent.config.Rules;
import io.qv4j.agent.log.Log;
import io.qv4j.api.Scope;
import io.qv4j.topology.CpuSet;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The weighted rules' shares of the JVM scope ({@code rule.N.weight}): one weighted split of it,
 * in rule order, worked out when a pool of such a rule is first planned and again after the
 * scope changed. Under the registry's lock.
 */
final class WeightedShares {

    private final Rules rules;
    private Map<String, CpuSet> shares; // rule name -> its share; null until asked for this JVM scope

    WeightedShares(Rules rules) {
        this.rules = rules;
    }

    /** Rule {@code r}'s share of {@code e}'s JVM scope; null when the scope cannot be split by the weights. */
    CpuSet of(Rule r, Env e) {
        if (shares == null) {
            shares = new LinkedHashMap<>();
            List<Rule> ws = new ArrayList<>();
            for (Rule x : rules.list()) if (x.weighted()) ws.add(x);
            double[] w = new double[ws.size()];
            for (int i = 0; i < w.length; i++) w[i] = ws.get(i).weight();
            try {
                List<Scope> pieces = Scope.of(e.topology(), e.ordinary()).splitWeighted(w).pieces();
                for (int i = 0; i < ws.size() && i < pieces.size(); i++) shares.put(ws.get(i).name(), pieces.get(i).cpuset());
                Log.debug("weighted rules: " + shares);
            } catch (RuntimeException ex) {
                Log.once("weights", "cannot split the JVM scope " + e.ordinary() + " by the rules' weights (" + ex.getMessage() + "): weights ignored");
            }
        }
        return shares.get(r.name());
    }

    /** The shares are worked out again from the next JVM scope. */
    void forget() {
        shares = null;
    }
}
