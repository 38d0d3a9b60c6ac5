package sbf;

/**
 * The compact form (docs/format5.md, section 3): version 5 with flag bit 6 (COMPACT), one
 * complete set stored as its elements' b-bit fingerprints (the low b bits of each hash), sorted,
 * in Elias-Fano form ({@link Ef}), behind a header of 14 to 36 bytes and an optional RANKS list;
 * no segments and no HyperLogLog. Layout (little-endian; LEB128 unsigned, in its shortest form):
 *
 * <pre>
 *   0   1   version = 5
 *   1   1   flags: 0x40 COMPACT (set), 0x20 PARAMS, 0x10 RANKS, 0x04 OVERLAP; every other
 *           bit 0
 *   2   1   b, fingerprint bits, 1..63 (and, the server's rule, above 9)
 *   3   1   L, low bits: Ef.lowBits(n, b)
 *   4   8   error_rate e, 0 &lt; e &lt; 0.5
 *   12  ..  n (LEB128), 1..2^32
 *   ..  ..  capacity (LEB128) &gt;= 1, the count the value was built for (adds in place take n
 *           past it); max(n, capacity) / 2^b &lt;= e
 *   ..  10  if PARAMS: growth (2 bytes, 1..16) and tightening (8, 0 &lt; r &lt;= 1), not both
 *           the defaults 2 and 0.9
 *   ..  ..  if RANKS (only where b &gt; 9): k (LEB128, 1..512), then k entries of 2 bytes, e =
 *           j | r &lt;&lt; 9: register j (bits 0-8) strictly ascending, rank r (bits 9-14, bit 15
 *           0) with b - 8 &lt; r &lt;= 56, and the fingerprint j among the value's; RANKS is
 *           clear when there is no entry
 *   ..  ..  the Elias-Fano code of the n ascending fingerprints, and nothing after it
 * </pre>
 *
 * The validator is the core's sbf_compact_check (src/core/compact/sbf_compact.c) with the
 * stored value's rule b &gt; 9 (sbf_compact_value.c: every stored compact value has a segmented
 * form, whose HyperLogLog takes precision 9 from the fingerprints). A hash matches when its
 * fingerprint is in the set; {@code # f} is n (with OVERLAP the elements behind n fingerprints, see
 * count); the rate bound is
 * max(n, capacity) / 2^b, the expected rate n / 2^b, the current rate the distinct fingerprints / 2^b.
 *
 * <p>The RANKS list: the HyperLogLog at precision 9 made from the fingerprints (the core's
 * sbf_compact_hll) caps each register's rank at b - 8, where a fingerprint has no bit above its
 * register; the list restores the hashes' true rank of the registers it names (register j's
 * value becomes r). This reader builds no HyperLogLog from a compact value (its count is n), so
 * it only checks the list; sbf_info does not report it (nor does the server's).
 */
final class Compact {
    private Compact() {
    }

    static final int VERSION = 5;
    static final int F_OVERLAP = 0x04;
    static final int F_PARAMS = 0x20;
    static final int F_RANKS = 0x10;
    static final int F_COMPACT = 0x40;
    /** The fixed fields before n; n and the capacity take 1 to 10 bytes each. */
    static final int FIXED = 12;
    static final int PARAMS_BYTES = 10;
    static final int LEB_MAX_BYTES = 10;
    /** The HyperLogLog precision of a compact value (its segmented form's): b must be above it. */
    static final int HLL_P = 9;
    static final int DEFAULT_GROWTH = 2;
    static final double DEFAULT_TIGHTENING = 0.9;
    static final int MAX_GROWTH = 16;
    /** The RANKS list: at most one entry a register at precision {@link #HLL_P}, 2 bytes each. */
    static final int REGISTERS = 1 << HLL_P;
    static final int RANK_ENTRY_BYTES = 2;
    /** The largest rank at precision 9 (64 - 9 + 1 = 56): bit 15 of an entry set is above it. */
    static final int RANK_MAX = 64 - HLL_P + 1;

    private static MalformedFilterException bad(String why) {
        return new MalformedFilterException(why);
    }

    /** Whether the bytes are in the compact form (then only {@link #parse} reads them). */
    static boolean is(byte[] b) {
        return b.length >= 2 && b[0] == VERSION && (b[1] & F_COMPACT) != 0;
    }

    /**
     * A LEB128 number at b[at[0]..] in its shortest form (leb_get): at most 10 bytes, none past
     * 2^64 - 1, no final zero byte after the first; at[0] moves past it.
     */
    static long leb(byte[] b, int[] at) throws MalformedFilterException {
        long v = 0;
        int off = at[0];
        for (int i = 0; i < LEB_MAX_BYTES && off + i < b.length; i++) {
            int c = b[off + i] & 0xFF;
            if (i == LEB_MAX_BYTES - 1 && c > 1)
                throw bad("LEB128 number past 64 bits");
            v |= (long) (c & 0x7F) << (7 * i);
            if ((c & 0x80) == 0) {
                if (c == 0 && i > 0)
                    throw bad("LEB128 number not in its shortest form");
                at[0] = off + i + 1;
                return v;
            }
        }
        throw bad("truncated LEB128 number");
    }

    /** The rules on the header's numbers (check_numbers). */
    private static boolean numbersOk(long n, int bits, double e, long capacity, int growth, double tightening) {
        if (n < 1 || n > Ef.MAX_N || bits < 1 || bits > Ef.MAX_BITS)
            return false;
        if (!(e > 0.0 && e < 0.5) || capacity == 0)
            return false;
        /* the rate bound: max(n, capacity) / 2^b <= e, in doubles (scalb is exact here) */
        if (!(Le.udouble(Long.compareUnsigned(capacity, n) > 0 ? capacity : n) <= Math.scalb(e, bits)))
            return false;
        return growth >= 1 && growth <= MAX_GROWTH && tightening > 0.0 && tightening <= 1.0;
    }

    /**
     * Checks the RANKS list at b[at[0]..] of a value of b-bit fingerprints (read_ranks): only where
     * bits &gt; 9; k 1..512 in LEB128's shortest form; 2 k bytes there; registers strictly
     * ascending; ranks above the fingerprints' cap b - 8 and at most 56 (so bit 15 clear). Returns
     * k; at[0] moves past the list.
     */
    private static int ranks(byte[] b, int[] at, int bits) throws MalformedFilterException {
        if (bits <= HLL_P)
            throw bad("RANKS where the fingerprint bits are not above the HyperLogLog's precision");
        long k = leb(b, at);
        if (k < 1 || k > REGISTERS)
            throw bad("RANKS entries out of range: " + Long.toUnsignedString(k));
        if ((b.length - at[0]) / RANK_ENTRY_BYTES < k)
            throw bad("truncated RANKS list");
        int prev = -1;
        for (int i = 0; i < k; i++) {
            int e = Le.u16(b, at[0] + RANK_ENTRY_BYTES * i);
            int j = e & (REGISTERS - 1);
            int r = e >>> HLL_P;
            if (j <= prev)
                throw bad("RANKS registers not ascending");
            if (r <= bits - HLL_P + 1 || r > RANK_MAX)
                throw bad("RANKS rank out of range");
            prev = j;
        }
        at[0] += RANK_ENTRY_BYTES * (int) k;
        return (int) k;
    }

    /** Reads a compact value, checking every rule of the layout and its code. */
    static Filter parse(byte[] b) throws MalformedFilterException {
        if (b.length < FIXED + 2)
            throw bad("short buffer");
        if (b[0] != VERSION)
            throw bad("unknown version " + (b[0] & 0xFF));
        int flags = b[1] & 0xFF;
        if ((flags & F_COMPACT) == 0 || (flags & ~(F_COMPACT | F_PARAMS | F_RANKS | F_OVERLAP)) != 0)
            throw bad("unknown flag bits");
        int bits = b[2] & 0xFF;
        double e = Le.f64(b, 4);
        int[] at = {FIXED};
        long n = leb(b, at);
        long capacity = leb(b, at);
        int growth = DEFAULT_GROWTH;
        double tightening = DEFAULT_TIGHTENING;
        if ((flags & F_PARAMS) != 0) {
            if (b.length - at[0] < PARAMS_BYTES)
                throw bad("truncated parameters");
            growth = Le.u16(b, at[0]);
            tightening = Le.f64(b, at[0] + 2);
            at[0] += PARAMS_BYTES;
            /* the defaults are written without PARAMS: one code a value */
            if (growth == DEFAULT_GROWTH && tightening == DEFAULT_TIGHTENING)
                throw bad("PARAMS holding the defaults");
        }
        /* the list (the core checks it with the header, before the numbers) */
        int nranks = (flags & F_RANKS) != 0 ? ranks(b, at, bits) : 0;
        int ranksAt = at[0] - RANK_ENTRY_BYTES * nranks;
        if (!numbersOk(n, bits, e, capacity, growth, tightening))
            throw bad("parameter out of range");
        if (bits <= HLL_P)
            throw bad("fingerprint bits not above the HyperLogLog's precision");
        Ef ef = new Ef(n, bits);
        if ((b[3] & 0xFF) != ef.low)
            throw bad("low bits not those of n and b");
        int off = at[0];
        if (b.length - off != ef.codeBytes())
            throw bad(b.length - off < ef.codeBytes() ? "truncated" : "length mismatch");
        if (!ef.check(b, off))
            throw bad("malformed fingerprint code");
        /* a register's rank is above the cap only where its fingerprint is */
        for (int i = 0; i < nranks; i++)
            if (!ef.has(Le.u16(b, ranksAt + RANK_ENTRY_BYTES * i) & (REGISTERS - 1)))
                throw bad("RANKS register whose fingerprint is absent");
        Filter f = new Filter(b, false, false);
        f.version = VERSION;
        f.flags = flags;
        f.hashId = 1;
        f.hllP = HLL_P;
        f.growth = growth;
        f.tightening = tightening;
        f.errorRate = e;
        f.capacity = capacity;
        f.hllOff = b.length;
        f.hllBytes = 0;
        f.ef = ef;
        return f;
    }

    /** Whether hash h's fingerprint is in the value's set. */
    static boolean contains(Filter f, long h) {
        return f.ef.has(Ef.fingerprint(h, f.ef.b));
    }

    /** The form's rate bound (fpr_bound): max(n, capacity) / 2^b. */
    static double fprBound(Filter f) {
        long most = Long.compareUnsigned(f.capacity, f.ef.n) > 0 ? f.capacity : f.ef.n;
        return Math.scalb(Le.udouble(most), -f.ef.b);
    }

    /**
     * {@code # f}: n, or with OVERLAP (a union kept once a fingerprint two inputs held) the
     * elements whose b-bit fingerprints take n distinct values, expected:
     * ln(1 - n/2^b) / ln(1 - 2^-b) (the core's sbf_compact_view_count).
     */
    static double count(Filter f) {
        if ((f.flags & F_OVERLAP) == 0)
            return Le.udouble(f.ef.n);
        return Math.log1p(-Math.scalb(Le.udouble(f.ef.n), -f.ef.b)) / Math.log1p(-Math.scalb(1.0, -f.ef.b));
    }

    /** The expected rate (fpr_estimate): n / 2^b. */
    static double expectedFpr(Filter f) {
        return Math.scalb((double) f.ef.n, -f.ef.b);
    }

    /** The current rate (sbf_current_fpr): the distinct fingerprints / 2^b. */
    static double currentFpr(Filter f) {
        return Math.scalb((double) f.ef.distinct, -f.ef.b);
    }
}
