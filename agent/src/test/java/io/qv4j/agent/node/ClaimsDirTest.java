package io.qv4j.agent.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where claims live by default: the user's runtime directory when it is set and usable, else /tmp. */
class ClaimsDirTest {

    @Test
    void theDefaultIsUnderAnOwnerOnlyRuntimeDirectoryAndTheOtherDefaultIsTmp(@TempDir Path tmp) throws Exception {
        Path run = Files.createDirectory(tmp.resolve("run"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Map<String, String> env = Map.of("XDG_RUNTIME_DIR", run.toString());
        assertEquals(run.resolve("qv4j"), ClaimsDir.defaultDir(env));
        assertEquals(ClaimsDir.tmpDefault(), ClaimsDir.otherDefault(env));
    }

    @Test
    void anUnsetRelativeMissingLinkedOrOpenRuntimeDirectoryFallsBackToTmp(@TempDir Path tmp) throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path real = Files.createDirectory(tmp.resolve("real"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        Path file = Files.writeString(tmp.resolve("file"), "");
        for (String v : new String[] {"", "   ", "run/user/1000", tmp.resolve("missing").toString(), open.toString(), link.toString(), file.toString()}) {
            assertEquals(ClaimsDir.tmpDefault(), ClaimsDir.defaultDir(Map.of("XDG_RUNTIME_DIR", v)), "XDG_RUNTIME_DIR=" + v);
        }
        assertEquals(ClaimsDir.tmpDefault(), ClaimsDir.defaultDir(Map.of()));
    }
}
