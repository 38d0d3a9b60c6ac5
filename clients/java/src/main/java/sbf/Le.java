package sbf;

/** Little-endian loads and the 64-bit mixes of the format (docs/format.md, format4.md). */
final class Le {
    private Le() {
    }

    static final long GOLDEN = 0x9E3779B97F4A7C15L;

    static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8;
    }

    /** An unsigned 32-bit field as a long. */
    static long u32(byte[] b, int i) {
        return Xxh3.r32(b, i);
    }

    static long u64(byte[] b, int i) {
        return Xxh3.r64(b, i);
    }

    static double f64(byte[] b, int i) {
        return Double.longBitsToDouble(Xxh3.r64(b, i));
    }

    /** splitmix64's finalizer (sbf_mix64). */
    static long mix64(long x) {
        x ^= x >>> 30;
        x *= 0xbf58476d1ce4e5b9L;
        x ^= x >>> 27;
        x *= 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    static long mulhi(long a, long b) {
        return Xxh3.mulhi(a, b);
    }

    /** mulhi(a, m) for 0 <= m < 2^63 (a segment's bits, lines or slots). */
    static long mulhiSmall(long a, long m) {
        return Math.multiplyHigh(a, m) + ((a >> 63) & m);
    }

    /** An unsigned 64-bit integer as a double (as C's (double) of a uint64_t). */
    static double udouble(long x) {
        if (x >= 0)
            return (double) x;
        /* halve keeping the low bit (round to odd), convert, double: correctly rounded */
        return ((double) ((x >>> 1) | (x & 1))) * 2.0;
    }

    static long bitCountWords(byte[] b, int off, long nbytes) {
        long ones = 0;
        for (long i = 0; i < nbytes; i += 8)
            ones += Long.bitCount(u64(b, off + (int) i));
        return ones;
    }
}
