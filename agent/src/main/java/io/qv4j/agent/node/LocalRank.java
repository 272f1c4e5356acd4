package io.qv4j.agent.node;

import java.util.Map;

/**
 * This JVM's place among the processes a launcher started on this node, and whether the launcher
 * says it bound the process itself.
 *
 * @param rank     local rank, 0-based
 * @param size     local processes on this node
 * @param source   where it came from, for messages: {@code Open MPI}, {@code Slurm}, {@code PMIx}, {@code local-rank=}
 * @param launcherBound the launcher says it bound the process ({@code OMPI_MCA_orte_bound_at_launch=1}, an
 *                 Open MPI binding policy other than none, {@code SLURM_CPU_BIND_TYPE} other than none)
 * @param noBinding the launcher was told not to bind ({@code mpirun --bind-to none}:
 *                 {@code OMPI_MCA_hwloc_base_binding_policy=none}; {@code srun --cpu-bind=none}: {@code none} in
 *                 {@code SLURM_CPU_BIND_TYPE} or {@code SLURM_CPU_BIND}), or null when it did not say
 */
public record LocalRank(int rank, int size, String source, boolean launcherBound, String noBinding) {

    /** A rank without a launcher's "no binding". */
    public LocalRank(int rank, int size, String source, boolean launcherBound) {
        this(rank, size, source, launcherBound, null);
    }

    /**
     * The local rank from the {@code local-rank=N/M} option (when not null) or the launchers'
     * variables: Open MPI, then PMIx, then Slurm. Null when none is there or they make no sense.
     */
    public static LocalRank detect(int[] option, Map<String, String> env) {
        String none = noBinding(env);
        boolean bound = none == null && launcherBound(env);
        if (option != null) return new LocalRank(option[0], option[1], "local-rank=", bound, none);
        LocalRank r = pair(env, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "Open MPI", bound, none);
        if (r == null) r = pair(env, "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE", "PMIx", bound, none);
        if (r == null) r = slurm(env, bound, none);
        return r;
    }

    /** The variable by which a launcher says binding is off ({@code NAME=value}), or null. */
    static String noBinding(Map<String, String> env) {
        String policy = env.get("OMPI_MCA_hwloc_base_binding_policy");
        if (policy != null && policy.strip().toLowerCase(java.util.Locale.ROOT).startsWith("none")) {
            return "OMPI_MCA_hwloc_base_binding_policy=" + policy.strip();
        }
        for (String var : new String[] {"SLURM_CPU_BIND_TYPE", "SLURM_CPU_BIND"}) {
            String v = env.get(var);
            if (v == null) continue;
            for (String word : v.toLowerCase(java.util.Locale.ROOT).split("[,\\s]+")) {
                if (word.equals("none") || word.equals("no")) return var + "=" + v.strip();
            }
        }
        return null;
    }

    static boolean launcherBound(Map<String, String> env) {
        if ("1".equals(env.get("OMPI_MCA_orte_bound_at_launch"))) return true;
        String policy = env.get("OMPI_MCA_hwloc_base_binding_policy");
        if (policy != null && !policy.isBlank() && !policy.toLowerCase(java.util.Locale.ROOT).startsWith("none")) return true;
        String slurm = env.get("SLURM_CPU_BIND_TYPE");
        return slurm != null && !slurm.isBlank() && !slurm.toLowerCase(java.util.Locale.ROOT).startsWith("none");
    }

    private static LocalRank pair(Map<String, String> env, String rankVar, String sizeVar, String source, boolean bound, String none) {
        Integer rank = integer(env.get(rankVar)), size = integer(env.get(sizeVar));
        if (rank == null || size == null || size < 1 || rank < 0 || rank >= size) return null;
        return new LocalRank(rank, size, source, bound, none);
    }

    /** {@code SLURM_LOCALID} with the tasks on this node from the step's (or the job's) tasks-per-node list. */
    private static LocalRank slurm(Map<String, String> env, boolean bound, String none) {
        Integer rank = integer(env.get("SLURM_LOCALID"));
        if (rank == null || rank < 0) return null;
        int node = integer(env.get("SLURM_NODEID")) == null ? 0 : integer(env.get("SLURM_NODEID"));
        Integer size = null;
        for (String var : new String[] {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
            if (size == null && env.get(var) != null) size = tasksOnNode(env.get(var), node);
        }
        if (size == null) size = integer(env.get("SLURM_NTASKS_PER_NODE"));
        if (size == null || size < 1 || rank >= size) return null;
        return new LocalRank(rank, size, "Slurm", bound, none);
    }

    /** Slurm's compressed list: {@code "2(x3),1"} means nodes 0-2 run 2 tasks, node 3 runs 1. Null when malformed or too short. */
    static Integer tasksOnNode(String list, int node) {
        int seen = 0;
        for (String part : list.strip().split(",")) {
            String p = part.strip();
            int repeat = 1;
            int paren = p.indexOf('(');
            if (paren >= 0) {
                if (!p.startsWith("(x", paren) || !p.endsWith(")")) return null;
                Integer r = integer(p.substring(paren + 2, p.length() - 1));
                if (r == null || r < 1) return null;
                repeat = r;
                p = p.substring(0, paren);
            }
            Integer tasks = integer(p);
            if (tasks == null) return null;
            if (node < seen + repeat) return tasks;
            seen += repeat;
        }
        return null;
    }

    private static Integer integer(String s) {
        if (s == null) return null;
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
