package io.qv4j.agent;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The agent's package graph points one way, bottom to top:
 * <ol>
 * <li>boot: what instrumented JDK code calls; JDK types only;</li>
 * <li>log, config (options, rules, policy), and the platform's topology readers
 * ({@code io.qv4j.topology.linux}, {@code .oshi});</li>
 * <li>bind, node, platform, load (what runs on the CPUs, from {@code /proc});</li>
 * <li>place;</li>
 * <li>annotations, report;</li>
 * <li>inst, cli;</li>
 * <li>the entry point, {@code io.qv4j.agent} itself.</li>
 * </ol>
 * A package may use its own layer and those below; no cycles between packages. Inside the CLI,
 * {@code cli.shared} is below every command; {@code compare} uses nothing else of the CLI,
 * {@code attach} uses {@code status}, which uses {@code plan}'s drawings; {@code Main} (the base
 * package) is above them all.
 */
class ArchitectureTest {

    /** This module's main classes (what they use elsewhere is known by name only: archunit.properties). */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importLocations(Set.of(Location.of(QvAgent.class.getProtectionDomain().getCodeSource().getLocation())));

    static LayeredArchitecture layers() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("boot").definedBy("io.qv4j.agent.boot..")
                .layer("configuration").definedBy("io.qv4j.agent.log..", "io.qv4j.agent.io..", "io.qv4j.agent.config..",
                        "io.qv4j.topology.linux..", "io.qv4j.topology.oshi..")
                .layer("binding").definedBy("io.qv4j.agent.bind..", "io.qv4j.agent.node..", "io.qv4j.agent.platform..", "io.qv4j.agent.load..")
                .layer("placement").definedBy("io.qv4j.agent.place..")
                .layer("annotations and report").definedBy("io.qv4j.agent.annotations..", "io.qv4j.agent.report..", "io.qv4j.agent.live..")
                .layer("instrumentation and cli").definedBy("io.qv4j.agent.inst..", "io.qv4j.agent.cli..")
                .layer("entry point").definedBy("io.qv4j.agent", "io.qv4j.agent.launch..")
                .whereLayer("entry point").mayNotBeAccessedByAnyLayer()
                .whereLayer("instrumentation and cli").mayOnlyBeAccessedByLayers("entry point")
                .whereLayer("annotations and report").mayOnlyBeAccessedByLayers("instrumentation and cli", "entry point")
                .whereLayer("placement").mayOnlyBeAccessedByLayers("annotations and report", "instrumentation and cli", "entry point")
                .whereLayer("binding").mayOnlyBeAccessedByLayers("placement", "annotations and report",
                        "instrumentation and cli", "entry point")
                .whereLayer("configuration").mayOnlyBeAccessedByLayers("binding", "placement", "annotations and report",
                        "instrumentation and cli", "entry point")
                .whereLayer("boot").mayOnlyBeAccessedByLayers("configuration", "binding", "placement", "annotations and report",
                        "instrumentation and cli", "entry point");
    }

    @Test
    void lowerLayersDoNotUseHigherOnes() {
        layers().check(CLASSES);
    }

    @Test
    void cliCommandsPointOneWay() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("shared").definedBy("io.qv4j.agent.cli.shared..")
                .layer("plan").definedBy("io.qv4j.agent.cli.plan..")
                .layer("status").definedBy("io.qv4j.agent.cli.status..")
                .layer("attach").definedBy("io.qv4j.agent.cli.attach..")
                .layer("compare").definedBy("io.qv4j.agent.cli.compare..")
                .layer("main").definedBy("io.qv4j.agent.cli")
                .whereLayer("main").mayNotBeAccessedByAnyLayer()
                .whereLayer("compare").mayOnlyBeAccessedByLayers("main")
                .whereLayer("attach").mayOnlyBeAccessedByLayers("main")
                .whereLayer("status").mayOnlyBeAccessedByLayers("attach", "main")
                .whereLayer("plan").mayOnlyBeAccessedByLayers("status", "main")
                .whereLayer("shared").mayOnlyBeAccessedByLayers("plan", "status", "attach", "compare", "main")
                .check(CLASSES);
    }

    @Test
    void noCyclesBetweenPackages() {
        slices().matching("io.qv4j.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void bootUsesJdkTypesOnly() {
        // renamed into java.util.concurrent and defined by the boot loader at run time
        ArchRule rule = classes().that().resideInAPackage("io.qv4j.agent.boot..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.qv4j.agent.boot..");
        rule.check(CLASSES);
    }

    @Test
    void topologyReadersUseNothingOfTheAgent() {
        ArchRule rule = noClasses().that().resideInAnyPackage("io.qv4j.topology.linux..", "io.qv4j.topology.oshi..")
                .should().dependOnClassesThat().resideInAPackage("io.qv4j.agent..");
        rule.check(CLASSES);
    }
}
