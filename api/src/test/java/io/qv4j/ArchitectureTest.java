package io.qv4j;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import io.qv4j.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The api module's package graph points one way: the topology model (with {@code HwType}) at the
 * bottom, the split engine ({@code split}, {@code partition}) on it, the facade ({@code api}) on
 * top; no cycles between packages.
 */
class ArchitectureTest {

    /** This module's main classes (what they use elsewhere is known by name only: archunit.properties). */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importLocations(Set.of(Location.of(CpuSet.class.getProtectionDomain().getCodeSource().getLocation())));

    @Test
    void noCyclesBetweenPackages() {
        ArchRule rule = slices().matching("io.qv4j.(**)").should().beFreeOfCycles();
        rule.check(CLASSES);
    }

    @Test
    void lowerLayersDoNotUseHigherOnes() {
        ArchRule rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("topology model").definedBy("io.qv4j.topology..")
                .layer("engine").definedBy("io.qv4j.split..", "io.qv4j.partition..")
                .layer("facade").definedBy("io.qv4j.api..")
                .whereLayer("facade").mayNotBeAccessedByAnyLayer()
                .whereLayer("engine").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("topology model").mayOnlyBeAccessedByLayers("engine", "facade");
        rule.check(CLASSES);
    }

    @Test
    void theApiKnowsNothingOfTheAgent() {
        noClasses().should().dependOnClassesThat().resideInAPackage("io.qv4j.agent..").check(CLASSES);
    }
}
