package sbf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Which values are version 5 (docs/format5.md section 5): version 4's plain layout whose
 * directory holds at least one compact segment (kind 5), which no other version admits; and
 * the compact entry's rules (descriptor, count = capacity = n, n / 2^b <= p < 0.5).
 */
class VersionFiveTest {
    static void refused(byte[] v, String why) {
        assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(v), why);
    }

    static Filter read(byte[] v) {
        return CompactTest.read(v);
    }

    static final long[] H = V5.hashes("v:", 30);
    static final int B = V5.bitsFor(30, 0.01);
    static final double P = Math.scalb(30.0, -B);

    /** A one-compact-segment value of version 5 with this entry. */
    static byte[] withEntry(long capacity, long count, double p, long size, int width, int arity, int log2len, int attempt) {
        return V5.cat(V5.header(5, 0, 1, 0, 0.01, 30), V5.entry(capacity, count, p, size, 5, width, arity, log2len, attempt),
            V5.code(H, B));
    }

    @Test
    void versionAndFlags() {
        byte[] v = V5.value(H, B);
        read(v);
        byte[] four = v.clone();
        four[0] = 4;
        refused(four, "a compact segment in version 4");
        for (int version : new int[] {1, 2, 3, 6, 255}) {
            byte[] m = v.clone();
            m[0] = (byte) version;
            refused(m, "version " + version);
        }
        for (int flags : new int[] {0x01, 0x02, 0x10, 0x20, 0x40, 0x80, 0x81}) {
            byte[] m = v.clone();
            m[1] = (byte) flags;
            refused(m, "flags " + flags);
        }
        for (int flags : new int[] {0x04, 0x08, 0x0C})
            read(V5.value(5, flags, H, B, P));
    }

    @Test
    void entryRules() {
        read(withEntry(30, 30, P, 30, B, 0, 0, 0));
        read(withEntry(30, 30, 0.4999, 30, B, 0, 0, 0));
        refused(withEntry(30, 30, Math.nextDown(P), 30, B, 0, 0, 0), "p below n / 2^b");
        refused(withEntry(30, 30, 0.5, 30, B, 0, 0, 0), "p 0.5");
        refused(withEntry(30, 30, Double.NaN, 30, B, 0, 0, 0), "p NaN");
        refused(withEntry(31, 30, P, 30, B, 0, 0, 0), "capacity above count");
        refused(withEntry(30, 29, P, 30, B, 0, 0, 0), "count below capacity");
        refused(withEntry(29, 29, P, 30, B, 0, 0, 0), "count and capacity below size");
        refused(withEntry(30, 30, P, 30, B, 1, 0, 0), "arity");
        refused(withEntry(30, 30, P, 30, B, 0, 1, 0), "log2len");
        refused(withEntry(30, 30, P, 30, B, 0, 0, 1), "attempt");
        for (int width : new int[] {0, 64, 200})
            refused(withEntry(30, 30, 0.4, 30, width, 0, 0, 0), "width " + width);
        for (long size : new long[] {0, 1L << 32 | 1, -1})
            refused(withEntry(size, size, 0.4, size, B, 0, 0, 0), "size " + size);
        /* a large segment the bytes do not hold: refused before anything is allocated */
        for (long size : new long[] {1L << 32, 1L << 27})
            refused(withEntry(size, size, 0.4, size, 40, 0, 0, 0), "size " + size + " not in the value");
        byte[] reserved = withEntry(30, 30, P, 30, B, 0, 0, 0);
        reserved[36 + 24 + 15] = 1;
        refused(reserved, "reserved descriptor byte");
        byte[] pad = V5.value(H, B);
        pad[pad.length - 1] = 1;
        refused(pad, "nonzero padding");
        /* the fingerprints descend: two elements of one bucket swapped by their low bits */
        byte[] two = V5.value(new long[] {0, 1}, 3);
        read(two);
        assertEquals(2, V5.lowBits(2, 3));
        two[77] ^= 0x05;    /* the low area (byte 1 of the code): low bits 00, 01 -> 01, 00 */
        refused(two, "fingerprints descending");
    }

    /** The plain version-4 values of the kit whose segments need no alignment (bloom, fused). */
    static List<byte[]> kitPlainV4() throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (Kit.Case c : Kit.cases()) {
            if (!c.type.equals("value") || c.bytes.length < 36 || c.bytes[0] != 4 || (c.bytes[1] & 0x80) != 0)
                continue;
            Filter f = read(c.bytes);
            if (Arrays.stream(f.segs).allMatch(s -> s.kind == Seg.BLOOM || s.kind == Seg.FUSED))
                out.add(c.bytes);
        }
        return out;
    }

    @Test
    void kitValuesRelabelled() throws IOException {
        List<Kit.Case> cases = Kit.cases();
        assumeTrue(!cases.isEmpty(), "no kit at " + Kit.dir());
        int n = 0;
        for (Kit.Case c : cases) {
            if (!c.type.equals("value") || c.bytes.length < 2 || c.bytes[0] != 4)
                continue;
            byte[] m = c.bytes.clone();
            m[0] = 5;
            refused(m, c.name + " relabelled 5 (no compact segment, or windowed)");
            n++;
        }
        assertTrue(n > 10, "version-4 kit values: " + n);
    }

    /** A compact segment appended to a kit value of version 4: read as version 5 only. */
    @Test
    void appendedToKitValues() throws IOException {
        List<byte[]> values = kitPlainV4();
        assumeTrue(!values.isEmpty(), "no kit at " + Kit.dir());
        long[] h = V5.hashes("appended:", 100);
        int b = V5.bitsFor(100, 0.001);
        byte[] entry = V5.entry(100, 100, Math.scalb(100.0, -b), 100, 5, b, 0, 0, 0);
        byte[] code = V5.code(h, b);
        for (byte[] v4 : values) {
            Filter f4 = read(v4);
            int nseg = f4.segs.length;
            int dir = 36 + 40 * nseg;
            byte[] head = Arrays.copyOf(v4, dir);
            head[0] = 5;
            head[6] = (byte) (nseg + 1);
            head[7] = (byte) ((nseg + 1) >>> 8);
            byte[] v = V5.cat(head, entry, Arrays.copyOfRange(v4, dir, f4.hllOff), code,
                Arrays.copyOfRange(v4, f4.hllOff, v4.length));
            Filter f = read(v);
            for (long x : h)
                assertTrue(f.containsHash(x));
            for (int i = 0; i < 200; i++) {
                long x = Filter.hash("elsewhere:" + i);
                assertEquals(f4.containsHash(x) || CompactTest.fingerprints(h, b).contains(V5.fingerprint(x, b)),
                    f.containsHash(x));
            }
            if (Plain.countSource(f4).equals("directory"))
                assertEquals(f4.cardinality() + 100, f.cardinality());
            else
                assertEquals(f4.cardinality(), f.cardinality());
            assertTrue(f.info().endsWith("\"kind\": \"compact\", \"capacity\": 100, \"count\": 100, \"bits\": "
                + 8L * code.length + ", \"fingerprint_bits\": " + b + ", \"low_bits\": " + V5.lowBits(100, b)
                + ", \"fingerprints\": 100, \"fill\": 0.5, \"error_rate\": " + Math.scalb(100.0, -b) + "}]}"), f.info());
            byte[] four = v.clone();
            four[0] = 4;
            refused(four, "a compact segment in version 4");
        }
    }

    /** A compact descriptor in a windowed version-4 entry: refused. */
    @Test
    void notInWindows() throws IOException {
        int n = 0;
        for (Kit.Case c : Kit.cases()) {
            if (!c.type.equals("value") || c.bytes.length < 64 || c.bytes[0] != 4 || (c.bytes[1] & 0x80) == 0)
                continue;
            Filter w = read(c.bytes);
            if (w.segs.length == 0)
                continue;
            byte[] m = c.bytes.clone();
            /* the first entry's descriptor (after age, reserved, count) as a compact one */
            int d = 40 + 8;
            long size = Le.u64(m, d);
            m[d + 8] = 5;
            m[d + 9] = 20;
            m[d + 10] = 0;
            m[d + 11] = 0;
            m[d + 12] = 0;
            refused(m, c.name + " with a compact entry of size " + size);
            n++;
        }
        assumeTrue(n > 0, "no windowed version-4 value in the kit");
    }
}
