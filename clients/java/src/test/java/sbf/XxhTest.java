package sbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * XXH3-64 against the core's hash: the vectors of src/test/c/xxh3_vectors.c (the C library
 * inlined by src/core/common/sbf_hash.c, written by test.sh into the file the property sbf.xxh3
 * names), and the test vectors docs/format.md freezes.
 */
class XxhTest {
    @Test
    void frozenVectors() {
        assertEquals(0x2d06800538d394c2L, Filter.hash(""));
        assertEquals(0x8acb0e6504ca2d6dL, Filter.hash("sku:123"));
        assertEquals(0x2fbc593564db792eL, Filter.hash(1L));
    }

    @Test
    void everyLengthAgainstTheCore() throws Exception {
        String file = System.getProperty("sbf.xxh3");
        assumeTrue(file != null && Files.isRegularFile(Path.of(file)), "no C vectors (gcc missing?)");
        byte[] buf = new byte[100003];
        for (int i = 0; i < buf.length; i++)
            buf[i] = (byte) ((i * 131 + (i >> 8) * 7 + 1) & 0xFF);
        List<String> lines = Files.readAllLines(Path.of(file));
        assertEquals(2207, lines.size(), "vector count");
        for (String l : lines) {
            String[] p = l.split(" ");
            int n = Integer.parseInt(p[0]);
            long want = Long.parseUnsignedLong(p[1], 16);
            long got = Xxh3.hash(buf, 0, n);
            assertEquals(want, got, () -> "length " + n);
            if (n <= 300) {
                /* at an offset inside a larger array, too */
                byte[] shifted = new byte[n + 7];
                System.arraycopy(buf, 0, shifted, 7, n);
                assertEquals(want, Xxh3.hash(shifted, 7, n), () -> "length " + n + " at offset 7");
            }
        }
    }
}
