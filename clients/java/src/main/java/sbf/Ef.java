package sbf;

import java.util.Arrays;

/**
 * A multiset of b-bit fingerprints in Elias-Fano form (docs/format5.md, sections 2 and 5): the
 * data of a compact segment (kind 5). Of n ascending fingerprints f_0 <= ... <= f_{n-1} < 2^b
 * with L low bits ({@link #lowBits}): the high area, ceil((n + 2^(b-L)) / 8) bytes, then the
 * low area, ceil(n L / 8) bytes, bits numbered from bit 0 of byte 0 on. Element i is the one
 * bit at position (f_i >> L) + i of the high area (bucket j's elements follow j zeros) and its
 * low bits are bits i L .. i L + L - 1 of the low area; every bit past those is 0.
 *
 * <p>{@link #check} validates a code and keeps a reader of it: up to {@link #DECODE_MAX}
 * fingerprints decoded into an array (a lookup is a binary search), more as the code's words
 * with the position of every 64th zero of the high area (a lookup goes to its bucket), so the
 * memory is at most 8 bytes a fingerprint or about twice the code.
 */
final class Ef {
    /** Fingerprints in one set, at most (and b at most 63 bits). */
    static final long MAX_N = 1L << 32;
    static final int MAX_BITS = 63;
    /** The most fingerprints decoded into an array (8 bytes each); a larger set is read in place. */
    static final int DECODE_MAX = 1 << 16;

    final long n;
    final int b;
    final int low;
    final long nbuckets;
    final long hibits;
    final long lobits;
    /** How many distinct fingerprints a checked code holds. */
    long distinct;
    /* the reader: the fingerprints decoded, or the areas' words and every 64th zero */
    private long[] fp;
    private long[] hi;
    private long[] lo;
    private long[] samp;

    /** The shape of n (1..MAX_N) fingerprints of b (1..MAX_BITS) bits. */
    Ef(long n, int b) {
        this.n = n;
        this.b = b;
        this.low = lowBits(n, b);
        this.nbuckets = 1L << (b - low);
        this.hibits = n + nbuckets;
        this.lobits = n * low;
    }

    /**
     * The low bits that make n fingerprints of b bits smallest, ties to the larger (the fewest
     * of n L + n + 2^(b - L) bits, all below 2^64 for n <= 2^32, b <= 63: compared unsigned).
     */
    static int lowBits(long n, int b) {
        long best = -1L;
        int bestL = 0;
        for (int l = 0; l < b; l++) {
            long bits = n * l + n + (1L << (b - l));
            if (Long.compareUnsigned(bits, best) <= 0) {
                best = bits;
                bestL = l;
            }
        }
        return bestL;
    }

    long hiBytes() {
        return (hibits + 7) / 8;
    }

    long loBytes() {
        return (lobits + 7) / 8;
    }

    /** Bytes of the code (before a segment's padding to 8). */
    long codeBytes() {
        return hiBytes() + loBytes();
    }

    /** The fingerprint of hash h: its low b bits. */
    static long fingerprint(long h, int b) {
        return h & (-1L >>> (64 - b));
    }

    private static long lowMask(int l) {
        return l == 0 ? 0 : (1L << l) - 1;
    }

    /** The len (at most 8) bytes at off as a little-endian number. */
    private static long load(byte[] a, int off, long len) {
        if (len >= 8)
            return Le.u64(a, off);
        long v = 0;
        for (int k = 0; k < len; k++)
            v |= (long) (a[off + k] & 0xFF) << (8 * k);
        return v;
    }

    /** The len (<= 62) bits from bit pos on of the nbytes bytes at a[off..]. */
    private static long getBits(byte[] a, int off, long nbytes, long pos, int len) {
        if (len == 0)
            return 0;
        long at = pos >>> 3;
        int sh = (int) (pos & 7);
        long v = load(a, off + (int) at, Math.min(nbytes - at, 8)) >>> sh;
        if (sh + len > 64)
            v |= (long) (a[off + (int) at + 8] & 0xFF) << (64 - sh);
        return v & lowMask(len);
    }

    /** Whether the bits of the nbytes bytes at a[off..] from bit nbits on are 0. */
    private static boolean tailClear(byte[] a, int off, long nbytes, long nbits) {
        return nbits % 8 == 0 || ((a[off + (int) nbytes - 1] & 0xFF) >>> (nbits % 8)) == 0;
    }

    /**
     * Whether the codeBytes() bytes at a[off..] (in bounds) are exactly a code of this shape:
     * zero bits past both areas, the last high bit a zero, exactly n ones in the high area, the
     * fingerprints ascending (sbf_ef_check). When they are, the reader is made.
     */
    boolean check(byte[] a, int off) {
        long hb = hiBytes();
        long lb = loBytes();
        int loOff = off + (int) hb;
        if (!tailClear(a, off, hb, hibits) || (lb > 0 && !tailClear(a, loOff, lb, lobits))
            || ((a[off + (int) ((hibits - 1) >>> 3)] >> ((hibits - 1) & 7)) & 1) != 0)
            return false;
        long[] dec = n <= DECODE_MAX ? new long[(int) n] : null;
        long i = 0;
        long prev = 0;
        long d = 0;
        for (long w = 0; w < hb; w += 8) {
            long word = load(a, off + (int) w, Math.min(hb - w, 8));
            while (word != 0) {
                long p = w * 8 + Long.numberOfTrailingZeros(word);
                if (i == n)
                    return false;
                long f = (p - i) << low | getBits(a, loOff, lb, i * low, low);
                if (Long.compareUnsigned(f, prev) < 0)
                    return false;
                d += (i == 0 || f != prev) ? 1 : 0;
                if (dec != null)
                    dec[(int) i] = f;
                prev = f;
                i++;
                word &= word - 1;
            }
        }
        if (i != n)
            return false;
        distinct = d;
        if (dec != null)
            fp = dec;
        else
            reader(a, off, loOff);
        return true;
    }

    /** The areas as words and the position of every 64th zero of the high area (sbf_ef_reader_init). */
    private void reader(byte[] a, int off, int loOff) {
        hi = words(a, off, hiBytes(), hibits / 64 + 2);
        lo = words(a, loOff, loBytes(), lobits / 64 + 2);
        samp = new long[(int) (nbuckets / 64 + 1)];
        long zeros = 0;
        for (int w = 0; zeros < nbuckets; w++) {
            long z = ~hi[w];
            for (; z != 0 && zeros < nbuckets; z &= z - 1, zeros++)
                if (zeros % 64 == 0)
                    samp[(int) (zeros / 64)] = (long) w * 64 + Long.numberOfTrailingZeros(z);
        }
    }

    private static long[] words(byte[] a, int off, long nbytes, long nwords) {
        long[] w = new long[(int) nwords];
        for (long i = 0; i < nbytes; i += 8)
            w[(int) (i / 8)] = load(a, off + (int) i, Math.min(nbytes - i, 8));
        return w;
    }

    /** Position of the r-th (0-based) one of w, which has more than r ones. */
    private static int select64(long w, int r) {
        for (; r > 0; r--)
            w &= w - 1;
        return Long.numberOfTrailingZeros(w);
    }

    /** Position of zero j (0-based, j < nbuckets) of the high area. */
    private long zeroAt(long j) {
        long p = samp[(int) (j / 64)];
        int k = (int) (j % 64);
        long z = ~hi[(int) (p >>> 6)] >>> (p & 63);
        for (;;) {
            int c = Long.bitCount(z);
            if (k < c)
                return p + select64(z, k);
            k -= c;
            p = (p | 63) + 1;
            z = ~hi[(int) (p >>> 6)];
        }
    }

    /** The low bits of element i. */
    private long lowOf(long i) {
        long pos = i * low;
        int sh = (int) (pos & 63);
        long v = lo[(int) (pos >>> 6)] >>> sh;
        if (sh != 0)
            v |= lo[(int) (pos >>> 6) + 1] << (64 - sh);
        return v & lowMask(low);
    }

    /** Whether fingerprint x is in the checked set. */
    boolean has(long x) {
        if (fp != null)
            return Arrays.binarySearch(fp, x) >= 0;
        long h = x >>> low;
        long l = x & lowMask(low);
        if (Long.compareUnsigned(h, nbuckets) >= 0)
            return false;
        long p = h == 0 ? 0 : zeroAt(h - 1) + 1;
        /* bucket h's elements, low bits ascending; the last bit is a zero */
        for (; ((hi[(int) (p >>> 6)] >>> (p & 63)) & 1) != 0; p++) {
            long v = lowOf(p - h);
            if (v >= l)
                return v == l;
        }
        return false;
    }
}
