package sbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Version 5's compact form (docs/format5.md section 3: flag bit 6, the fingerprints' Elias-Fano
 * code behind a 14- to 36-byte header and the optional RANKS list), values made here from the
 * layout alone: lookups against the bit-by-bit decoding of the code (V5.decode), the count, the
 * rates and sbf_info, and every rule of the header, the list and the code broken once (each must
 * be refused, as the core's sbf_compact_check and the server's b &gt; 9 refuse it), next to the
 * accepted edges.
 */
class CompactValueTest {
    static Filter read(byte[] v) {
        try {
            return Filter.fromBytes(v);
        } catch (MalformedFilterException e) {
            throw new AssertionError("refused: " + e.getMessage(), e);
        }
    }

    static byte[] leb(long x) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        while (Long.compareUnsigned(x, 0x80) >= 0) {
            o.write((int) (x & 0x7F) | 0x80);
            x >>>= 7;
        }
        o.write((int) x);
        return o.toByteArray();
    }

    static int hiBytes(long n, int b) {
        return (int) ((n + (1L << (b - V5.lowBits(n, b))) + 7) / 8);
    }

    static int codeBytes(long n, int b) {
        return hiBytes(n, b) + (int) ((n * V5.lowBits(n, b) + 7) / 8);
    }

    private static void setBit(byte[] a, long pos) {
        a[(int) (pos >>> 3)] |= (byte) (1 << (pos & 7));
    }

    /**
     * The code of fingerprints fp in the order given (not sorted: a test may break the order),
     * not padded: element i's one at (fp_i >> L) + i of the high area, its L low bits at i L of
     * the low area.
     */
    static byte[] codeOf(long[] fp, int b) {
        int n = fp.length;
        int l = V5.lowBits(n, b);
        int hb = hiBytes(n, b);
        byte[] out = new byte[codeBytes(n, b)];
        for (int i = 0; i < n; i++) {
            setBit(out, (fp[i] >>> l) + i);
            for (int k = 0; k < l; k++)
                if (((fp[i] >>> k) & 1) != 0)
                    setBit(out, 8L * hb + (long) i * l + k);
        }
        return out;
    }

    static long[] sortedFingerprints(long[] h, int b) {
        long[] fp = new long[h.length];
        for (int i = 0; i < h.length; i++)
            fp[i] = V5.fingerprint(h[i], b);
        Arrays.sort(fp);
        return fp;
    }

    /** A compact value's fields, each of which a test may set to anything before bytes(). */
    static final class Spec {
        int version = 5;
        int flags = 0x40;
        int b;
        int low;
        double e = 0.01;
        byte[] n;
        byte[] capacity;
        int growth = 2;
        double tightening = 0.9;
        /* the RANKS list as written (k, then the entries), whatever the flag says */
        byte[] ranks = new byte[0];
        byte[] code;

        /** The value of hashes h at b bits of this capacity, rate e, the default parameters. */
        Spec(long[] h, int b, long capacity, double e) {
            this.b = b;
            this.low = V5.lowBits(h.length, b);
            this.e = e;
            this.n = leb(h.length);
            this.capacity = leb(capacity);
            this.code = codeOf(sortedFingerprints(h, b), b);
        }

        /** The same with growth and tightening written (PARAMS). */
        Spec params(int g, double r) {
            flags |= 0x20;
            growth = g;
            tightening = r;
            return this;
        }

        /** The same with a RANKS list of k written as given and these 2-byte entries ({@link #entry}). */
        Spec ranks(byte[] k, int... entries) {
            flags |= 0x10;
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            o.writeBytes(k);
            for (int x : entries)
                V5.put16(o, x);
            ranks = o.toByteArray();
            return this;
        }

        /** The same with a RANKS list of these entries, k their number. */
        Spec ranks(int... entries) {
            return ranks(leb(entries.length), entries);
        }

        /** Bytes of the header before the code. */
        int headerBytes() {
            return 12 + n.length + capacity.length + ((flags & 0x20) != 0 ? 10 : 0) + ranks.length;
        }

        byte[] bytes() {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            o.write(version);
            o.write(flags);
            o.write(b);
            o.write(low);
            V5.put64(o, Double.doubleToLongBits(e));
            o.writeBytes(n);
            o.writeBytes(capacity);
            if ((flags & 0x20) != 0) {
                V5.put16(o, growth);
                V5.put64(o, Double.doubleToLongBits(tightening));
            }
            o.writeBytes(ranks);
            o.writeBytes(code);
            return o.toByteArray();
        }
    }

    /** The least b with capacity / 2^b <= e, at least 10 (what the server writes). */
    static int bitsFor(long capacity, double e) {
        return Math.max(10, V5.bitsFor(capacity, e));
    }

    static Spec spec(int n, double e) {
        return new Spec(V5.hashes("cv:", n), bitsFor(n, e), n, e);
    }

    /** Every member found; every probe found exactly when its fingerprint is in the decoded code. */
    static void checkLookups(Filter f, byte[] v, long[] h, int b, int probes) {
        long[] dec = V5.decode(v, v.length - codeBytes(h.length, b), h.length, b);
        assertArrayEquals(sortedFingerprints(h, b), dec, "the code decodes to the sorted fingerprints");
        Set<Long> fps = new HashSet<>();
        for (long x : dec)
            fps.add(x);
        for (long x : h)
            assertTrue(f.containsHash(x), () -> "member " + Long.toHexString(x));
        int found = 0;
        for (long x : V5.hashes("absent:", probes)) {
            boolean in = fps.contains(V5.fingerprint(x, b));
            assertEquals(in, f.containsHash(x), () -> "probe " + Long.toHexString(x));
            found += in ? 1 : 0;
        }
        double rate = Math.scalb((double) fps.size(), -b);
        assertTrue(found <= 2 * rate * probes + 10, "false positives " + found + " of " + probes + " at rate " + rate);
    }

    static void roundTrip(int n, double e, long capacity) {
        long[] h = V5.hashes("rt" + n + ":", n);
        int b = bitsFor(capacity, e);
        byte[] v = new Spec(h, b, capacity, e).bytes();
        Filter f = read(v);
        assertArrayEquals(v, f.toBytes());
        assertEquals(v.length, 12 + leb(n).length + leb(capacity).length + codeBytes(n, b), "the value ends where the code ends");
        checkLookups(f, v, h, b, 3000);
        String[] elems = new String[Math.min(n, 500) + 2];
        for (int i = 0; i < elems.length - 2; i++)
            elems[i] = "rt" + n + ":" + i;
        assertEquals(elems.length - 2, f.matches(elems));
        assertEquals(n, f.cardinality());
        assertEquals("fingerprints", Plain.countSource(f));
        assertEquals(Math.scalb((double) capacity, -b), Plain.fprBound(f));
        assertEquals(Math.scalb((double) n, -b), Plain.expectedFpr(f));
        assertEquals(Math.scalb((double) new HashSet<>(toList(sortedFingerprints(h, b))).size(), -b), Compact.currentFpr(f));
        assertFalse(f.isWindowed());
        assertEquals(5, f.version());
        assertArrayEquals(v, read(v).toBytes());
    }

    static List<Long> toList(long[] a) {
        List<Long> l = new ArrayList<>();
        for (long x : a)
            l.add(x);
        return l;
    }

    @TestFactory
    Stream<DynamicTest> roundTrips() {
        /* n, e, capacity: 1 to over Ef.DECODE_MAX (read in place), rates 0.3 to 0.0001 */
        Object[][] cases = {{1, 0.01, 1L}, {2, 0.3, 2L}, {30, 0.01, 30L}, {127, 0.01, 128L}, {200, 0.25, 400L},
            {700, 0.001, 700L}, {3000, 0.01, 3000L}, {5000, 0.0001, 5000L}, {Ef.DECODE_MAX + 5000, 0.01, 80000L}};
        return Arrays.stream(cases).map(c -> DynamicTest.dynamicTest("n " + c[0] + ", e " + c[1] + ", capacity " + c[2],
            () -> roundTrip((Integer) c[0], (Double) c[1], (Long) c[2])));
    }

    /** sbf_info: the keys in the server's order, the compact form's values. */
    @Test
    void info() {
        Spec s = spec(30, 0.01);
        byte[] v = s.bytes();
        Filter f = read(v);
        @SuppressWarnings("unchecked")
        Map<String, Object> j = (Map<String, Object>) MiniJson.parse(f.info());
        assertEquals(List.of("version", "hash", "error_rate", "growth", "tightening", "capacity", "hll", "form", "fingerprints",
            "fingerprint_bits", "low_bits", "count_source", "cardinality", "fpr_bound", "fpr_estimate", "bytes", "segments"),
            new ArrayList<>(j.keySet()));
        Map<String, Object> want = new LinkedHashMap<>();
        want.put("version", 5.0);
        want.put("hash", "xxh3_64");
        want.put("error_rate", 0.01);
        want.put("growth", 2.0);
        want.put("tightening", 0.9);
        want.put("capacity", 30.0);
        want.put("hll", Map.of("precision", 9.0, "form", "none", "bytes", 0.0));
        want.put("form", "compact");
        want.put("fingerprints", 30.0);
        want.put("fingerprint_bits", 12.0);
        want.put("low_bits", 7.0);
        want.put("count_source", "fingerprints");
        want.put("cardinality", 30.0);
        want.put("fpr_bound", 30.0 / 4096);
        want.put("fpr_estimate", 30.0 / 4096);
        want.put("bytes", (double) v.length + 4);
        want.put("segments", List.of());
        assertEquals(want, j);
        /* PARAMS shows its growth and tightening; OVERLAP keeps the count n */
        Filter p = read(spec(30, 0.01).params(3, 0.8).bytes());
        assertTrue(p.info().contains("\"growth\": 3, \"tightening\": 0.8,"), p.info());
        Spec o = spec(30, 0.01);
        o.flags |= 0x04;
        Filter of = read(o.bytes());
        assertEquals(30, of.cardinality());
        assertTrue(of.info().contains("\"count_source\": \"fingerprints\", \"cardinality\": 30,"), of.info());
        assertFalse(of.info().contains("continues_chain"));
    }

    /** A hash given twice is two fingerprints: # counts n, the current rate the distinct ones. */
    @Test
    void multiset() {
        long[] h = {Filter.hash("a"), Filter.hash("a"), Filter.hash("b")};
        Spec s = new Spec(h, 12, 3, 0.01);
        Filter f = read(s.bytes());
        assertEquals(3, f.cardinality());
        assertTrue(f.contains("a") && f.contains("b"));
        assertEquals(Math.scalb(3.0, -12), Plain.expectedFpr(f));
        assertEquals(Math.scalb(2.0, -12), Compact.currentFpr(f));
    }

    /** 63 fingerprint bits: the hash's top bit is not in its fingerprint. */
    @Test
    void widestFingerprints() {
        long h = 0x0123456789ABCDEFL;
        Spec s = new Spec(new long[] {h}, 63, 1, 0.01);
        assertEquals(62, s.low);
        Filter f = read(s.bytes());
        assertTrue(f.containsHash(h));
        assertTrue(f.containsHash(h ^ Long.MIN_VALUE));
        assertFalse(f.containsHash(h ^ 1));
        assertFalse(f.containsHash(h ^ (1L << 62)));
        assertEquals(Math.scalb(1.0, -63), Plain.fprBound(f));
    }

    /** One broken rule: a name and the change to a valid value's spec. */
    record Break(String name, Consumer<Spec> change) {
    }

    static long[] fp30() {
        return sortedFingerprints(V5.hashes("cv:", 30), 12);
    }

    static List<Break> headerBreaks() {
        List<Break> l = new ArrayList<>();
        l.add(new Break("version 4", s -> s.version = 4));
        l.add(new Break("version 6", s -> s.version = 6));
        for (int bit : new int[] {0x01, 0x02, 0x08, 0x80})
            l.add(new Break("flag " + bit, s -> s.flags |= bit));
        l.add(new Break("b 0", s -> s.b = 0));
        l.add(new Break("b 64", s -> s.b = 64));
        l.add(new Break("b 255", s -> s.b = 255));
        l.add(new Break("low bits + 1", s -> s.low++));
        l.add(new Break("low bits - 1", s -> s.low--));
        l.add(new Break("low bits 0", s -> s.low = 0));
        for (double e : new double[] {0.0, -0.0, -0.01, 0.5, 0.75, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE})
            l.add(new Break("error rate " + e, s -> s.e = e));
        /* the rate bound: max(n, capacity) / 2^b <= e, 30 / 4096 > 0.0073 */
        l.add(new Break("error rate below capacity / 2^b", s -> s.e = 0.0073));
        l.add(new Break("capacity 41 > e 2^b", s -> s.capacity = leb(41)));
        l.add(new Break("capacity 0", s -> s.capacity = leb(0)));
        l.add(new Break("capacity 2^64 - 1", s -> s.capacity = leb(-1L)));
        l.add(new Break("capacity past 64 bits", s -> s.capacity = new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, 2}));
        l.add(new Break("capacity of 11 bytes", s -> s.capacity = new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -127, 0}));
        l.add(new Break("capacity not shortest", s -> s.capacity = new byte[] {(byte) 0x9e, 0}));
        l.add(new Break("n 0", s -> s.n = leb(0)));
        l.add(new Break("n not shortest", s -> s.n = new byte[] {(byte) 0x9e, (byte) 0x80, 0}));
        l.add(new Break("n 31", s -> s.n = leb(31)));
        l.add(new Break("n 29", s -> s.n = leb(29)));
        l.add(new Break("n 2^32 + 1", s -> {
            s.n = leb((1L << 32) + 1);
            s.capacity = s.n;
            s.b = 40;
        }));
        l.add(new Break("b 9 (the server's rule)", s -> {
            s.b = 9;
            s.low = V5.lowBits(30, 9);
            s.e = 0.49;
            s.code = codeOf(sortedFingerprints(V5.hashes("cv:", 30), 9), 9);
        }));
        return l;
    }

    static List<Break> paramsBreaks() {
        List<Break> l = new ArrayList<>();
        l.add(new Break("PARAMS the defaults", s -> s.params(2, 0.9)));
        l.add(new Break("growth 0", s -> s.params(0, 0.8)));
        l.add(new Break("growth 17", s -> s.params(17, 0.9)));
        l.add(new Break("growth 65535", s -> s.params(65535, 0.9)));
        for (double r : new double[] {0.0, -0.5, Math.nextUp(1.0), Double.NaN, Double.POSITIVE_INFINITY})
            l.add(new Break("tightening " + r, s -> s.params(3, r)));
        return l;
    }

    /** A RANKS entry: register j in bits 0-8, rank r in bits 9-15. */
    static int entry(int j, int r) {
        return j | r << 9;
    }

    /**
     * A valid RANKS list of spec(30, 0.01) (b = 12: ranks 5..56): the registers 47, 191, 234 and
     * 322, whose fingerprints are among the 30 (234 twice).
     */
    static final int[] RANKS30 = {entry(47, 5), entry(191, 56), entry(234, 9), entry(322, 20)};

    /** A broken rule of the RANKS list, with words of the refusal that name it (null: any refusal). */
    record RankBreak(String name, String why, Consumer<Spec> change) {
    }

    static List<RankBreak> rankBreaks() {
        List<RankBreak> l = new ArrayList<>();
        String range = "RANKS entries out of range";
        String rank = "RANKS rank out of range";
        String order = "RANKS registers not ascending";
        String absent = "fingerprint is absent";
        l.add(new RankBreak("b 9", "RANKS where the fingerprint bits", s -> {
            long[] fp = sortedFingerprints(V5.hashes("cv:", 30), 9);
            s.b = 9;
            s.low = V5.lowBits(30, 9);
            s.e = 0.49;
            s.code = codeOf(fp, 9);
            s.ranks(entry((int) fp[0], 2));
        }));
        l.add(new RankBreak("k 0", range, s -> s.ranks(leb(0))));
        l.add(new RankBreak("k 513", range, s -> s.ranks(leb(513), RANKS30)));
        l.add(new RankBreak("k 2^64 - 1", range, s -> s.ranks(leb(-1L), RANKS30)));
        l.add(new RankBreak("k not shortest", "shortest form", s -> s.ranks(new byte[] {(byte) 0x84, 0}, RANKS30)));
        /* 8 bytes of entries and the code's 35 remain: 22 entries do not */
        l.add(new RankBreak("k past the end", "truncated RANKS list",
            s -> s.ranks(leb((8 + codeBytes(30, 12)) / 2 + 1), RANKS30)));
        l.add(new RankBreak("k one more than the entries", null, s -> s.ranks(leb(5), RANKS30)));
        l.add(new RankBreak("k one less than the entries", "length mismatch", s -> s.ranks(leb(3), RANKS30)));
        l.add(new RankBreak("bit 15 set", rank, s -> s.ranks(entry(47, 5) | 0x8000, entry(191, 56))));
        l.add(new RankBreak("rank 64 + 5 (bit 15)", rank, s -> s.ranks(entry(47, 69))));
        l.add(new RankBreak("rank b - 8, the cap", rank, s -> s.ranks(entry(47, 4), entry(191, 56))));
        l.add(new RankBreak("rank 57", rank, s -> s.ranks(entry(47, 5), entry(191, 57))));
        l.add(new RankBreak("rank 0", rank, s -> s.ranks(entry(47, 0))));
        l.add(new RankBreak("a register twice", order, s -> s.ranks(entry(47, 5), entry(191, 56), entry(191, 30))));
        l.add(new RankBreak("registers descending", order, s -> s.ranks(entry(191, 56), entry(47, 5))));
        l.add(new RankBreak("register 48, no such fingerprint", absent, s -> s.ranks(entry(47, 5), entry(48, 5))));
        l.add(new RankBreak("register 511, no such fingerprint", absent, s -> s.ranks(entry(322, 20), entry(511, 56))));
        /* register j's fingerprint must be j itself, not one with bits above the register */
        l.add(new RankBreak("a register whose fingerprints have bits above it", absent, s -> {
            Set<Long> fps = new HashSet<>(toList(fp30()));
            for (long x : fp30())
                if (!fps.contains(x & 511)) {
                    s.ranks(entry((int) (x & 511), 20));
                    return;
                }
            fail("every fingerprint's register is a fingerprint");
        }));
        l.add(new RankBreak("flag clear, the list written", "length mismatch", s -> {
            s.ranks(RANKS30);
            s.flags &= ~0x10;
        }));
        l.add(new RankBreak("flag set, no list", null, s -> s.flags |= 0x10));
        return l;
    }

    static List<Break> codeBreaks() {
        List<Break> l = new ArrayList<>();
        int hb = hiBytes(30, 12);
        long hibits = 30 + (1L << (12 - V5.lowBits(30, 12)));
        l.add(new Break("the last high bit a one", s -> setBit(s.code, hibits - 1)));
        l.add(new Break("a bit past the high area", s -> setBit(s.code, hibits)));
        l.add(new Break("a bit past the low area", s -> setBit(s.code, 8L * s.code.length - 1)));
        l.add(new Break("a one more", s -> {
            for (long p = 0;; p++)
                if ((s.code[(int) (p >>> 3)] >> (p & 7) & 1) == 0) {
                    setBit(s.code, p);
                    return;
                }
        }));
        l.add(new Break("a one less", s -> {
            for (int i = 0;; i++)
                if (s.code[i] != 0) {
                    s.code[i] &= (byte) (s.code[i] - 1);
                    return;
                }
        }));
        l.add(new Break("fingerprints descending in a bucket", s -> {
            long[] fp = fp30();
            long[] d = fp.clone();
            /* a bucket of two distinct fingerprints (the same high bits): their low bits swapped */
            for (int i = 1; i < d.length; i++)
                if (d[i] >>> 7 == d[i - 1] >>> 7 && d[i] != d[i - 1]) {
                    d[i] = fp[i - 1];
                    d[i - 1] = fp[i];
                    s.code = codeOf(d, 12);
                    return;
                }
            fail("no bucket of two distinct fingerprints");
        }));
        l.add(new Break("the code a byte short", s -> s.code = Arrays.copyOf(s.code, s.code.length - 1)));
        l.add(new Break("a byte after the code", s -> s.code = Arrays.copyOf(s.code, s.code.length + 1)));
        l.add(new Break("padded to 8 bytes", s -> s.code = Arrays.copyOf(s.code, (s.code.length + 8) / 8 * 8)));
        l.add(new Break("no code", s -> s.code = new byte[0]));
        l.add(new Break("a high-area code only", s -> s.code = Arrays.copyOf(s.code, hb)));
        return l;
    }

    @TestFactory
    Stream<DynamicTest> refusals() {
        List<Break> all = new ArrayList<>(headerBreaks());
        all.addAll(paramsBreaks());
        all.addAll(codeBreaks());
        return all.stream().map(br -> DynamicTest.dynamicTest("refuse " + br.name(), () -> {
            Spec s = spec(30, 0.01);
            assertEquals(12, s.b);
            read(s.bytes());
            br.change().accept(s);
            byte[] v = s.bytes();
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(v), br.name());
            if (Compact.is(v))
                assertThrows(MalformedFilterException.class, () -> Compact.parse(v), br.name());
        }));
    }

    /** Each rule of the RANKS list broken once: refused, by that rule where it is the first broken. */
    @TestFactory
    Stream<DynamicTest> rankRefusals() {
        return rankBreaks().stream().map(br -> DynamicTest.dynamicTest("refuse RANKS " + br.name(), () -> {
            Spec s = spec(30, 0.01);
            read(s.ranks(RANKS30).bytes());
            s = spec(30, 0.01);
            br.change().accept(s);
            byte[] v = s.bytes();
            MalformedFilterException e =
                assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(v), br.name());
            if (br.why() != null)
                assertTrue(e.getMessage().contains(br.why()), br.name() + ": " + e.getMessage());
            assertThrows(MalformedFilterException.class, () -> Compact.parse(v), br.name());
        }));
    }

    /** A value with a RANKS list reads as the same value without it: lookups, count, rates, sbf_info (but bytes). */
    @Test
    void ranksList() throws MalformedFilterException {
        Set<Long> fps = new HashSet<>(toList(fp30()));
        for (int x : RANKS30)
            assertTrue(fps.contains((long) (x & 511)), "register " + (x & 511));
        byte[] plain = spec(30, 0.01).bytes();
        Spec s = spec(30, 0.01).ranks(RANKS30);
        byte[] v = s.bytes();
        assertEquals(plain.length + 1 + 2 * RANKS30.length, v.length);
        assertEquals(v.length - codeBytes(30, 12), s.headerBytes());
        Filter f = read(v);
        assertArrayEquals(v, f.toBytes());
        assertEquals(f.toText(), Filter.fromText(f.toText()).toText(), "text form");
        checkLookups(f, v, V5.hashes("cv:", 30), 12, 3000);
        Filter p = read(plain);
        assertEquals(p.cardinality(), f.cardinality());
        assertEquals(Plain.fprBound(p), Plain.fprBound(f));
        assertEquals(Plain.expectedFpr(p), Plain.expectedFpr(f));
        assertEquals(Compact.currentFpr(p), Compact.currentFpr(f));
        /* sbf_info shows no list (as the server's): the same keys, the bytes its own */
        String bytes = "\"bytes\": ";
        assertEquals(p.info().replace(bytes + (plain.length + 4) + ",", bytes + (v.length + 4) + ","), f.info());
        for (int len = 0; len < v.length; len++) {
            byte[] cut = Arrays.copyOf(v, len);
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(cut), "cut to " + len);
        }
        for (int more = 1; more <= 4; more++) {
            byte[] grown = Arrays.copyOf(v, v.length + more);
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(grown), "grown by " + more);
        }
    }

    /** The longest list: all 512 registers (fingerprints 0..511 at b = 11, ranks 4..56), k of 2 bytes. */
    @Test
    void ranksOfEveryRegister() {
        long[] h = new long[512];
        int[] ranks = new int[512];
        for (int j = 0; j < 512; j++) {
            h[j] = (long) j << 40 | j;
            ranks[j] = entry(j, 4 + j % 53);
        }
        Spec s = new Spec(h, 11, 512, 0.25).ranks(ranks);
        assertArrayEquals(new byte[] {(byte) 0x80, 4}, Arrays.copyOf(s.ranks, 2));
        Filter f = read(s.bytes());
        assertEquals(512, f.cardinality());
        for (long x : h)
            assertTrue(f.containsHash(x));
        MiniJson.parse(f.info());
        /* the cap at b = 11 is 3 */
        int[] capped = ranks.clone();
        capped[300] = entry(300, 3);
        byte[] v = new Spec(h, 11, 512, 0.25).ranks(capped).bytes();
        assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(v), "rank 3 at b 11");
        byte[] w = new Spec(h, 11, 512, 0.25).ranks(new byte[] {(byte) 0x80, (byte) 0x84, 0}, ranks).bytes();
        assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(w), "k 512 not shortest");
        byte[] u = new Spec(h, 11, 512, 0.25).ranks(leb(513), ranks).bytes();
        assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(u), "k 513");
    }

    /** Values at the edges of each rule, which the core accepts. */
    @Test
    void acceptedEdges() {
        List<Break> ok = new ArrayList<>();
        ok.add(new Break("capacity 40 = floor(e 2^b)", s -> s.capacity = leb(40)));
        ok.add(new Break("error rate 30 / 4096", s -> s.e = 30.0 / 4096));
        ok.add(new Break("error rate below 0.5", s -> s.e = Math.nextDown(0.5)));
        ok.add(new Break("OVERLAP", s -> s.flags |= 0x04));
        ok.add(new Break("growth 16", s -> s.params(16, 0.9)));
        ok.add(new Break("growth 1", s -> s.params(1, 0.9)));
        ok.add(new Break("tightening 1", s -> s.params(2, 1.0)));
        ok.add(new Break("tightening least", s -> s.params(2, Double.MIN_VALUE)));
        ok.add(new Break("growth 2, tightening 0.8", s -> s.params(2, 0.8)));
        ok.add(new Break("b 10", s -> {
            s.b = 10;
            s.low = V5.lowBits(30, 10);
            s.e = 0.03;
            s.code = codeOf(sortedFingerprints(V5.hashes("cv:", 30), 10), 10);
        }));
        ok.add(new Break("capacity of 2 bytes", s -> {
            s.capacity = leb(200);
            s.b = 15;
            s.low = V5.lowBits(30, 15);
            s.code = codeOf(sortedFingerprints(V5.hashes("cv:", 30), 15), 15);
        }));
        ok.add(new Break("RANKS", s -> s.ranks(RANKS30)));
        ok.add(new Break("RANKS of one entry, rank b - 7", s -> s.ranks(entry(47, 5))));
        ok.add(new Break("RANKS of one entry, rank 56, the last register", s -> s.ranks(entry(322, 56))));
        ok.add(new Break("RANKS after PARAMS, OVERLAP", s -> {
            s.params(3, 0.8).ranks(RANKS30);
            s.flags |= 0x04;
        }));
        ok.add(new Break("RANKS at b 10, rank 3", s -> {
            long[] fp = sortedFingerprints(V5.hashes("cv:", 30), 10);
            s.b = 10;
            s.low = V5.lowBits(30, 10);
            s.e = 0.03;
            s.code = codeOf(fp, 10);
            assertTrue(fp[0] < 512, "a fingerprint below 512");
            s.ranks(entry((int) fp[0], 3));
        }));
        for (Break br : ok) {
            Spec s = spec(30, 0.01);
            br.change().accept(s);
            Filter f;
            try {
                f = Filter.fromBytes(s.bytes());
            } catch (MalformedFilterException e) {
                fail(br.name() + ": refused: " + e.getMessage());
                return;
            }
            for (long x : V5.hashes("cv:", 30))
                assertTrue(f.containsHash(x), br.name());
            assertEquals(30, f.cardinality(), br.name());
            MiniJson.parse(f.info());
        }
    }

    /** Every cut of a value and every byte added is refused; the 14-byte floor. */
    @Test
    void lengths() {
        byte[] v = spec(30, 0.01).params(3, 0.8).bytes();
        for (int len = 0; len < v.length; len++) {
            byte[] cut = Arrays.copyOf(v, len);
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(cut), "cut to " + len);
        }
        for (int more = 1; more <= 16; more++) {
            byte[] grown = Arrays.copyOf(v, v.length + more);
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(grown), "grown by " + more);
        }
        /* n and a capacity whose LEB128 runs past the end */
        byte[] header = Arrays.copyOf(v, 14);
        header[12] = (byte) 0x9e;
        header[13] = (byte) 0x80;
        assertThrows(MalformedFilterException.class, () -> Compact.parse(header));
    }

    /** Every single-bit flip of three values (one with a RANKS list): refused, or read and answering as its own decoding. */
    @Test
    void everyBitFlip() {
        for (byte[] v : new byte[][] {spec(30, 0.01).bytes(), spec(12, 0.001).params(4, 0.5).bytes(),
            spec(30, 0.01).params(3, 0.8).ranks(RANKS30).bytes()}) {
            long[] probe = V5.hashes("flip:", 2000);
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
                int n = (int) f.ef.n;
                int b = f.ef.b;
                Set<Long> fps = new HashSet<>(toList(V5.decode(m, m.length - codeBytes(n, b), n, b)));
                for (long x : probe)
                    assertEquals(fps.contains(V5.fingerprint(x, b)), f.containsHash(x), "flip " + bit);
                assertEquals(n, f.cardinality());
                MiniJson.parse(f.info());
                CorruptionTest.exercise(f);
            }
            assertTrue(accepted > 0 && accepted < v.length * 8, "flips accepted: " + accepted);
        }
    }

    /** The kit's malformed compact values are refused by the compact form's own validator. */
    @Test
    void kitMalformed() throws IOException {
        List<String> ls = Kit.lines("malformed.txt");
        assumeTrue(ls != null, "no malformed.txt at " + Kit.dir());
        int n = 0;
        for (String line : ls) {
            String[] r = line.split(" ", -1);
            if (!r[0].equals("malformed") || !r[1].startsWith("v5_value_"))
                continue;
            byte[] v = Kit.hex(r.length > 2 ? r[2] : "-");
            n++;
            assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(v), r[1]);
            if (Compact.is(v))
                assertThrows(MalformedFilterException.class, () -> Compact.parse(v), r[1]);
        }
        assertTrue(n > 0, "no v5_value_ records in malformed.txt");
    }
}
