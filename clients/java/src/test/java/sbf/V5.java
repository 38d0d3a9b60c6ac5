package sbf;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Version-5 values made by hand for the tests, from docs/format5.md section 5 alone (not from
 * the reader's code): version 4's plain header, 40-byte entries with a kind descriptor, each
 * compact segment's Elias-Fano code zero-padded to 8 bytes, then the HyperLogLog (none: a sparse
 * one of 0 bytes). Also a plain bit-by-bit decoder of a code, to check what a reader answers.
 */
final class V5 {
    private V5() {
    }

    /** The L of n fingerprints of b bits: the fewest n L + n + 2^(b-L) bits, ties to the larger L. */
    static int lowBits(long n, int b) {
        BigInteger best = null;
        int bestL = 0;
        for (int l = 0; l < b; l++) {
            BigInteger bits = BigInteger.valueOf(n).multiply(BigInteger.valueOf(l + 1)).add(BigInteger.ONE.shiftLeft(b - l));
            if (best == null || bits.compareTo(best) <= 0) {
                best = bits;
                bestL = l;
            }
        }
        return bestL;
    }

    static long fingerprint(long h, int b) {
        return h & ((1L << b) - 1);
    }

    /** The least b with n / 2^b <= share. */
    static int bitsFor(long n, double share) {
        int b = 1;
        while (Math.scalb((double) n, -b) > share)
            b++;
        return b;
    }

    private static void setBit(byte[] a, long pos) {
        a[(int) (pos >>> 3)] |= (byte) (1 << (pos & 7));
    }

    private static boolean bit(byte[] a, int off, long pos) {
        return ((a[off + (int) (pos >>> 3)] >> (pos & 7)) & 1) != 0;
    }

    /** The code of the fingerprints of hashes h at b bits, zero-padded to a multiple of 8 bytes. */
    static byte[] code(long[] h, int b) {
        long[] fp = new long[h.length];
        for (int i = 0; i < h.length; i++)
            fp[i] = fingerprint(h[i], b);
        Arrays.sort(fp);
        int n = fp.length;
        int l = lowBits(n, b);
        long hibits = n + (1L << (b - l));
        long hb = (hibits + 7) / 8;
        long lb = ((long) n * l + 7) / 8;
        byte[] out = new byte[(int) ((hb + lb + 7) / 8 * 8)];
        for (int i = 0; i < n; i++) {
            setBit(out, (fp[i] >>> l) + i);
            for (int k = 0; k < l; k++)
                if (((fp[i] >>> k) & 1) != 0)
                    setBit(out, hb * 8 + (long) i * l + k);
        }
        return out;
    }

    /** The n fingerprints of a code of b bits at a[off..], bit by bit (of a code a reader took). */
    static long[] decode(byte[] a, int off, int n, int b) {
        int l = lowBits(n, b);
        long hibits = n + (1L << (b - l));
        long lo = (hibits + 7) / 8 * 8;
        long[] fp = new long[n];
        int i = 0;
        for (long p = 0; p < hibits && i < n; p++) {
            if (!bit(a, off, p))
                continue;
            long f = p - i;
            for (int k = l - 1; k >= 0; k--)
                f = f << 1 | (bit(a, off, lo + (long) i * l + k) ? 1 : 0);
            fp[i++] = f;
        }
        return fp;
    }

    static void put64(ByteArrayOutputStream o, long v) {
        for (int i = 0; i < 8; i++)
            o.write((int) (v >>> (8 * i)));
    }

    static void put16(ByteArrayOutputStream o, int v) {
        o.write(v);
        o.write(v >>> 8);
    }

    /** A plain header (format4.md section 2): hash 1, HyperLogLog p 9, growth 2, tightening 0.9. */
    static byte[] header(int version, int flags, int nseg, long hllBytes, double errorRate, long capacity) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.write(version);
        o.write(flags);
        o.write(1);
        o.write(9);
        put16(o, 2);
        put16(o, nseg);
        put16(o, (int) hllBytes);
        put16(o, (int) (hllBytes >>> 16));
        put64(o, Double.doubleToLongBits(errorRate));
        put64(o, Double.doubleToLongBits(0.9));
        put64(o, capacity);
        return o.toByteArray();
    }

    /** A 40-byte entry: capacity, count, error, then the descriptor (size, kind, width, arity, log2len, attempt). */
    static byte[] entry(long capacity, long count, double error, long size, int kind, int width, int arity,
        int log2len, int attempt) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        put64(o, capacity);
        put64(o, count);
        put64(o, Double.doubleToLongBits(error));
        put64(o, size);
        o.write(kind);
        o.write(width);
        o.write(arity);
        o.write(log2len);
        o.write(attempt);
        o.writeBytes(new byte[3]);
        return o.toByteArray();
    }

    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts)
            o.writeBytes(p);
        return o.toByteArray();
    }

    /** One compact segment of hashes h at b bits with rate bound p, no HyperLogLog. */
    static byte[] value(int version, int flags, long[] h, int b, double p) {
        int n = h.length;
        return cat(header(version, flags, 1, 0, 0.01, n), entry(n, n, p, n, 5, b, 0, 0, 0), code(h, b));
    }

    /** The same at rate bound n / 2^b (the least an entry may state). */
    static byte[] value(long[] h, int b) {
        return value(5, 0, h, b, Math.scalb((double) h.length, -b));
    }

    static long[] hashes(String prefix, int n) {
        long[] h = new long[n];
        for (int i = 0; i < n; i++)
            h[i] = Filter.hash(prefix + i);
        return h;
    }
}
