package io.qv4j.agent.node;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LockTableTest {

    @Test
    void theOwnUidIsTheEffectiveUidTheKernelGivesThisProcessesFiles() throws Exception {
        Path made = Files.createTempFile("qv-uid", ".txt");
        try {
            assertEquals(Files.getAttribute(made, "unix:uid"), LockTable.ownUid());
        } finally {
            Files.delete(made);
        }
    }
}
