package sbf;

/**
 * The false-positive rate of a kind-1 bloom segment computed from its bits (docs/format.md
 * RATE BOUND), the same doubles as the core's sbf_bloom_bound.c: the mean, over the steps y
 * that HASH reaches (odd residues when m is even), of the share of starts x whose k positions
 * are all set; exact where every (x, y) fits the work, else a model from the fill and the
 * count.
 */
final class BloomBound {
    /** The extractions a value's bound takes in all, shared by its segments (the core's). */
    static final long WORK = 1L << 20;

    private BloomBound() {
    }

    /** The len (1..64) bits at pos..pos+len-1, pos + len <= m, position pos in bit 0. */
    private static long bitsLin(byte[] b, int data, long pos, int len) {
        long q = pos >>> 6;
        int r = (int) (pos & 63);
        long w = Le.u64(b, data + (int) (q * 8)) >>> r;
        if (r != 0 && r + len > 64)
            w |= Le.u64(b, data + (int) ((q + 1) * 8)) << (64 - r);
        return len == 64 ? w : w & ((1L << len) - 1);
    }

    /** The 64 bits at positions t..t+63 (mod m), position t in bit 0. */
    private static long bitsFrom(byte[] b, int data, long m, long t) {
        if (m - t >= 64)
            return bitsLin(b, data, t, 64);
        if (m >= 64) {
            int len = (int) (m - t);
            return bitsLin(b, data, t, len) | bitsLin(b, data, 0, 64 - len) << len;
        }
        long w = 0;
        int j = 0;
        while (j < 64) {
            int len = (int) Math.min(m - t, 64 - j);
            w |= bitsLin(b, data, t, len) << j;
            j += len;
            t = 0;
        }
        return w;
    }

    private static long countAllSet(byte[] b, int data, long m, long[] c, int k, long x0, long n) {
        long hits = 0;
        for (long done = 0; done < n; done += 64) {
            long x = x0 + done;
            long acc = n - done >= 64 ? -1L : (1L << (n - done)) - 1;
            if (x >= m)
                x -= m;
            for (int i = 0; i < k && acc != 0; i++) {
                long t = x + c[i];
                if (t >= m)
                    t -= m;
                acc &= bitsFrom(b, data, m, t);
            }
            hits += Long.bitCount(acc);
        }
        return hits;
    }

    private static void offsets(long m, long y, int k, long[] c) {
        long px = 0;
        long py = y;
        for (int i = 0; i < k; i++) {
            c[i] = px;
            px += py;
            if (px >= m)
                px -= m;
            long inc = i + 1;
            if (inc >= m)
                inc %= m;
            py += inc;
            if (py >= m)
                py -= m;
        }
    }

    /**
     * The rate of bloom segment seg of the value b (count elements): exact where every (x, y)
     * takes at most work extractions, else fill^k (1 + k^2 / m) + count / (m ny); at most 1.
     */
    static double of(byte[] b, Seg seg, long count, long work) {
        long m = seg.size;
        int k = seg.width;
        long ny = (m % 2 == 0) ? m / 2 : m;
        long words = (m + 63) / 64;
        if (words <= work / k / ny) {
            long[] c = new long[k];
            double sum = 0.0;
            for (long j = 0; j < ny; j++) {
                offsets(m, (m % 2 == 0) ? 2 * j + 1 : j, k, c);
                sum += (double) countAllSet(b, seg.data, m, c, k, 0, m) / (double) m;
            }
            return sum / (double) ny;
        }
        double f = (double) Le.bitCountWords(b, seg.data, words * 8) / (double) m;
        double r = Rates.ipow(f, k) * (1.0 + (double) k * k / (double) m)
            + (double) count / ((double) m * (double) ny);
        return r < 1.0 ? r : 1.0;
    }
}
