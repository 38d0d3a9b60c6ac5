package sbf;

/** The HyperLogLog area (docs/format.md, FORMAT): checks and Ertl's improved raw estimator. */
final class Hll {
    private Hll() {
    }

    static int denseBytes(int p) {
        return (6 << p) / 8;
    }

    static boolean checkSize(long bytes, boolean dense, int p) {
        if (dense)
            return bytes == denseBytes(p);
        return bytes % 4 == 0 && bytes / 4 <= denseBytes(p) / 4;
    }

    private static int denseGet(byte[] b, int off, int j) {
        int bit = j * 6;
        int at = off + (bit >>> 3);
        int shift = bit & 7;
        int v = (b[at] & 0xFF) >>> shift;
        if (shift > 2)
            v |= (b[at + 1] & 0xFF) << (8 - shift);
        return v & 63;
    }

    /** The whole area: ranges, order, canonical representation. */
    static boolean check(byte[] b, int off, int bytes, boolean dense, int p) {
        int nregs = 1 << p;
        int maxrho = 65 - p;
        if (!checkSize(bytes, dense, p))
            return false;
        if (dense) {
            int nonzero = 0;
            for (int j = 0; j < nregs; j++) {
                int r = denseGet(b, off, j);
                if (r > maxrho)
                    return false;
                if (r != 0)
                    nonzero++;
            }
            return nonzero > denseBytes(p) / 4;
        }
        long prev = -1;
        for (int i = 0; i < bytes / 4; i++) {
            long e = Le.u32(b, off + 4 * i);
            long idx = e >>> 8;
            long rho = e & 0xFF;
            if (idx >= nregs || idx <= prev || rho == 0 || rho > maxrho)
                return false;
            prev = idx;
        }
        return true;
    }

    private static double sigma(double x) {
        if (x >= 1.0)
            return Double.POSITIVE_INFINITY;
        double y = 1.0;
        double z = x;
        double zprev;
        do {
            x *= x;
            zprev = z;
            z += x * y;
            y += y;
        } while (z != zprev);
        return z;
    }

    private static double tau(double x) {
        if (x <= 0.0 || x >= 1.0)
            return 0.0;
        double y = 1.0;
        double z = 1.0 - x;
        double zprev;
        do {
            x = Math.sqrt(x);
            zprev = z;
            y *= 0.5;
            z -= (1.0 - x) * (1.0 - x) * y;
        } while (z != zprev);
        return z / 3.0;
    }

    /** Ertl 2017's improved raw estimate (sbf_hll_estimate). */
    static double estimate(byte[] b, int off, int bytes, boolean dense, int p) {
        int nregs = 1 << p;
        int q = 64 - p;
        long[] hist = new long[66];
        double m = nregs;
        if (dense) {
            for (int j = 0; j < nregs; j++) {
                int r = denseGet(b, off, j);
                hist[Math.min(r, q + 1)]++;
            }
        } else {
            int n = Math.min(bytes / 4, nregs);
            hist[0] = nregs - n;
            for (int i = 0; i < n; i++) {
                int r = b[off + 4 * i] & 0xFF;
                hist[Math.min(r, q + 1)]++;
            }
        }
        if (hist[0] == nregs)
            return 0.0;
        double z = m * tau(1.0 - hist[q + 1] / m);
        for (int v = q; v >= 1; v--)
            z = 0.5 * (z + hist[v]);
        z += m * sigma(hist[0] / m);
        return m * m / (2.0 * 0.6931471805599453 * z);
    }
}
