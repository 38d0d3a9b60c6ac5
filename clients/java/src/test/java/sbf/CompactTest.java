package sbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Version-5 values holding one compact segment (docs/format5.md section 5), made by hand
 * (V5): lookups against the fingerprint set, the count, sbf_info, and the Elias-Fano reader
 * both ways (decoded up to Ef.DECODE_MAX fingerprints, read in place above).
 */
class CompactTest {
    static Filter read(byte[] v) {
        try {
            return Filter.fromBytes(v);
        } catch (MalformedFilterException e) {
            throw new AssertionError("refused: " + e.getMessage(), e);
        }
    }

    /** One dynamic test per {a, b} pair of cases. */
    static Stream<DynamicTest> each(String what, double[][] cases, CaseBody body) {
        return Arrays.stream(cases).map(c -> DynamicTest.dynamicTest(what + " " + num(c[0]) + ", " + num(c[1]), body.of(c[0], c[1])));
    }

    static String num(double x) {
        return x == Math.rint(x) ? Long.toString((long) x) : Double.toString(x);
    }

    interface CaseBody {
        void run(double a, double b) throws Throwable;

        default Executable of(double a, double b) {
            return () -> run(a, b);
        }
    }

    static Set<Long> fingerprints(long[] h, int b) {
        Set<Long> s = new HashSet<>();
        for (long x : h)
            s.add(V5.fingerprint(x, b));
        return s;
    }

    /** Every member found; a non-member exactly when its fingerprint is a member's; the false positives near n / 2^b. */
    static void checkLookups(Filter f, long[] h, int b, int probes) {
        for (long x : h)
            assertTrue(f.containsHash(x), () -> "member " + Long.toHexString(x));
        Set<Long> fps = fingerprints(h, b);
        long[] other = V5.hashes("absent:", probes);
        int fp = 0;
        for (long x : other) {
            boolean in = fps.contains(V5.fingerprint(x, b));
            assertEquals(in, f.containsHash(x), () -> "non-member " + Long.toHexString(x));
            fp += in ? 1 : 0;
        }
        double rate = Math.scalb((double) fps.size(), -b);
        assertTrue(fp <= 2 * rate * probes + 10, "false positives " + fp + " of " + probes + " at rate " + rate);
    }

    @TestFactory
    Stream<DynamicTest> membersAndCount() {
        double[][] cases = {{1, 0.25}, {1, 0.01}, {2, 0.3}, {20, 0.01}, {300, 0.01}, {1000, 0.001}, {5000, 0.05},
            {Ef.DECODE_MAX, 0.01}, {Ef.DECODE_MAX + 1, 0.01}, {70000, 0.001}};
        return each("n, share", cases, (a, c) -> membersAndCount((int) a, c));
    }

    static void membersAndCount(int n, double share) throws MalformedFilterException {
        long[] h = V5.hashes("member:", n);
        int b = V5.bitsFor(n, share);
        byte[] v = V5.value(h, b);
        Filter f = read(v);
        assertEquals(5, f.version());
        assertFalse(f.isWindowed());
        checkLookups(f, h, b, 20000);
        assertEquals(n, f.cardinality());
        assertArrayEquals(v, f.toBytes());
        assertEquals(f.toText(), Filter.fromText(f.toText()).toText(), "text form");
    }

    /** The widest fingerprints (63 bits: low bits up to 62, read across 9 bytes) and the narrowest. */
    @TestFactory
    Stream<DynamicTest> extremeWidths() {
        double[][] cases = {{1, 63}, {2, 63}, {3, 62}, {100, 63}, {70000, 63}, {1, 2}, {3, 3}, {7, 4}, {100000, 18}};
        return each("n, b", cases, (a, c) -> {
            int n = (int) a;
            int b = (int) c;
            long[] h = V5.hashes("w:", n);
            Filter f = read(V5.value(h, b));
            checkLookups(f, h, b, 5000);
            assertEquals(n, f.cardinality());
        });
    }

    /** Fingerprints repeat (a multiset) and cluster: long runs of empty buckets for the in-place reader. */
    @Test
    void multisetsAndClusters() {
        long[] small = {1, 9, 5, 1L << 40 | 1};     /* fingerprints 1, 9, 5, 1 at 4 bits */
        Filter f = read(V5.value(small, 4));
        assertTrue(f.containsHash(17) && f.containsHash(5) && f.containsHash(9) && f.containsHash(1L << 63 | 1));
        assertFalse(f.containsHash(2) || f.containsHash(0) || f.containsHash(15));
        assertEquals(4, f.cardinality());
        for (int n : new int[] {1000, 70000}) {
            long[] h = new long[n];
            for (int i = 0; i < n; i++)
                h[i] = (long) (i / 3) * 7 | (long) i << 32;    /* at b = 22: runs of three equal */
            Filter g = read(V5.value(h, 22));
            checkLookups(g, h, 22, 20000);
            for (long x = 0; x < 30000; x++)
                assertEquals(x % 7 == 0 && x / 7 < (n + 2) / 3, g.containsHash(x), "fingerprint " + x);
        }
    }

    @Test
    void info() {
        int n = 20;
        int b = V5.bitsFor(n, 0.01);
        double p = Math.scalb((double) n, -b);
        byte[] v = V5.value(V5.hashes("i:", n), b);
        Filter f = read(v);
        String info = f.info();
        String seg = "{\"kind\": \"compact\", \"capacity\": 20, \"count\": 20, \"bits\": " + 8L * (v.length - 76)
            + ", \"fingerprint_bits\": " + b + ", \"low_bits\": " + V5.lowBits(n, b) + ", \"fingerprints\": 20, \"fill\": 0.5, \"error_rate\": "
            + p + "}";
        assertTrue(info.endsWith("\"segments\": [" + seg + "]}"), info);
        @SuppressWarnings("unchecked")
        Map<String, Object> j = (Map<String, Object>) MiniJson.parse(info);
        assertEquals(5.0, j.get("version"));
        assertEquals("directory", j.get("count_source"));
        assertEquals(20.0, j.get("cardinality"));
        assertEquals(p, (Double) j.get("fpr_bound"));
        assertEquals(p, (Double) j.get("fpr_estimate"), 1e-15);
        assertEquals((double) v.length + 4, j.get("bytes"));
        assertEquals(Map.of("precision", 9.0, "form", "sparse", "bytes", 0.0, "estimate", 0.0), j.get("hll"));
        assertEquals(List.of("kind", "capacity", "count", "bits", "fingerprint_bits", "low_bits", "fingerprints", "fill",
            "error_rate"), new ArrayList<>(((Map<?, ?>) ((List<?>) j.get("segments")).get(0)).keySet()));
        /* OVERLAP: the count is the (empty) HyperLogLog's; CHAIN shows */
        Filter o = read(V5.value(5, 0x0C, V5.hashes("i:", n), b, p));
        assertEquals(0, o.cardinality());
        assertTrue(o.info().contains("\"continues_chain\": true, \"count_source\": \"hll\""), o.info());
    }

    /** The reader answers as the bit-by-bit decoding of what it accepted. */
    static void checkAccepted(Filter f, byte[] m, long[] probe) {
        Seg s = f.segs[0];
        Set<Long> fps = new HashSet<>();
        for (long x : V5.decode(m, s.data, (int) s.size, s.width))
            fps.add(x);
        for (long x : probe)
            assertEquals(fps.contains(V5.fingerprint(x, s.width)), f.containsHash(x));
        /* an accepted flip may be OVERLAP's: the count is then the (empty) HyperLogLog's */
        assertEquals(Plain.countSource(f).equals("directory") ? s.size : 0, f.cardinality());
        MiniJson.parse(f.info());
        CorruptionTest.exercise(f);
    }

    static long[] probes(long[] h, int extra) {
        long[] p = Arrays.copyOf(h, h.length + extra);
        long[] o = V5.hashes("probe:", extra);
        System.arraycopy(o, 0, p, h.length, extra);
        return p;
    }

    /** Every single-bit flip of small values: refused, or read and answering as its decoding. */
    @TestFactory
    Stream<DynamicTest> everyBitFlip() {
        double[][] cases = {{1, 2}, {3, 3}, {20, 11}, {40, 63}, {150, 14}};
        return each("n, b", cases, (a, c) -> everyBitFlip((int) a, (int) c));
    }

    static void everyBitFlip(int n, int b) {
        long[] h = V5.hashes("flip:", n);
        byte[] v = V5.value(h, b);
        long[] probe = probes(h, 300);
        int accepted = 0;
        for (int bit = 0; bit < v.length * 8; bit++) {
            byte[] m = v.clone();
            m[bit >>> 3] ^= (byte) (1 << (bit & 7));
            Filter f;
            try {
                f = Filter.fromBytes(m);
            } catch (MalformedFilterException e) {
                continue;
            }
            accepted++;
            checkAccepted(f, m, probe);
        }
        assertTrue(accepted < v.length * 8, "every flip accepted");
        for (int len = 0; len < v.length; len++) {
            int cut = len;
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(Arrays.copyOf(v, cut)));
        }
        for (int more = 1; more <= 16; more++) {
            int grow = more;
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(Arrays.copyOf(v, v.length + grow)));
        }
    }

    /** Random flips of a value read in place (over Ef.DECODE_MAX fingerprints). */
    @Test
    void bitFlipsInPlace() {
        int n = Ef.DECODE_MAX + 100;
        long[] h = V5.hashes("big:", n);
        int b = V5.bitsFor(n, 0.01);
        byte[] v = V5.value(h, b);
        long[] probe = probes(Arrays.copyOf(h, 500), 500);
        SplittableRandom r = new SplittableRandom(5);
        for (int round = 0; round < 400; round++) {
            byte[] m = v.clone();
            /* the code, mostly: its high area, low area and padding */
            int bit = round % 4 == 0 ? r.nextInt(8 * 76) : 8 * 76 + r.nextInt(8 * (v.length - 76));
            m[bit >>> 3] ^= (byte) (1 << (bit & 7));
            try {
                checkAccepted(Filter.fromBytes(m), m, probe);
            } catch (MalformedFilterException e) {
                continue;
            } catch (RuntimeException e) {
                fail("flip of bit " + bit + ": " + e, e);
            }
        }
    }
}
