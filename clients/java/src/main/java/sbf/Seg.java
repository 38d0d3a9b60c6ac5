package sbf;

/**
 * One segment of a value, with its kind's probe, checks and rates (docs/format.md HASH and
 * WINDOWED POSITIONS; docs/format4.md sections 3-5; docs/format5.md section 5). Kinds: 1 bloom
 * (double hashing), 2 blocked, 3 fused, 4 windowed bloom (independent positions), 5 compact
 * (sorted fingerprints in Elias-Fano form, {@link Ef}; plain version 5 only).
 */
final class Seg {
    static final int BLOOM = 1;
    static final int BLOCKED = 2;
    static final int FUSED = 3;
    static final int WBLOOM = 4;
    static final int COMPACT = 5;

    static final long MAX_STORED_BYTES = 0x3FFFFFFFL - 4;
    static final long MAX_SEGMENT_BITS = MAX_STORED_BYTES * 8;
    static final long BLOCKED_MAX_LINES = MAX_STORED_BYTES / 64;
    static final long FUSED_MAX_SLOTS = 0xFFFFFFFFL;

    /* the descriptor (format 4) or the fields of formats 1-3 */
    int kind;
    long size;          /* bloom: bits m; blocked: lines L; fused: segment count S; compact: n */
    int width;          /* k, f or compact's b */
    int arity;
    int log2len;
    int attempt;
    /* directory fields */
    long capacity;      /* plain */
    long count;
    double error;       /* plain: the stored rate bound */
    int age;            /* windowed */
    /* data area: payload offset, bytes, padding before it */
    int data;
    long bytes;
    int pad;
    /* fused: the seed of its seed number, slots A */
    long seed;
    long slots;
    /* compact: the code's shape, then (checkData) its reader */
    Ef ef;

    /** Checks a kind's geometry ranges (check_geom); false when out of range. */
    boolean checkGeom() {
        switch (kind) {
            case BLOOM:
            case WBLOOM:
                return size >= 1 && size <= MAX_SEGMENT_BITS && width >= 1 && width <= 64
                    && arity == 0 && log2len == 0 && attempt == 0;
            case BLOCKED:
                return width >= 1 && width <= 32 && arity == 0 && log2len == 0 && attempt == 0
                    && size >= 1 && size <= BLOCKED_MAX_LINES;
            case FUSED:
                return width >= 1 && width <= 32 && (arity == 3 || arity == 4) && log2len <= 18
                    && attempt < 64 && size >= 1 && fusedSlots() != 0;
            case COMPACT:
                return size >= 1 && size <= Ef.MAX_N && width >= 1 && width <= Ef.MAX_BITS
                    && arity == 0 && log2len == 0 && attempt == 0;
            default:
                return false;
        }
    }

    private long fusedSlots() {
        if (Long.compareUnsigned(size, FUSED_MAX_SLOTS) > 0)
            return 0;
        long segs = size + arity - 1;
        if (segs > (FUSED_MAX_SLOTS >>> log2len))
            return 0;
        return segs << log2len;
    }

    /** The data bytes of a checked geometry, or -1 when over the stored limit. */
    long dataBytes() {
        long b;
        switch (kind) {
            case BLOOM:
            case WBLOOM:
                b = wordsBytes(size);
                break;
            case BLOCKED:
                b = size * 64;
                break;
            case COMPACT:
                ef = new Ef(size, width);
                b = (ef.codeBytes() + 7) / 8 * 8;
                break;
            default:
                slots = fusedSlots();
                b = (slots * width + 63) / 64 * 8;
                break;
        }
        return b <= MAX_STORED_BYTES ? b : -1;
    }

    static long wordsBytes(long m) {
        return (m / 64 + (m % 64 != 0 ? 1 : 0)) * 8;
    }

    /** Where the area starts after offset end (format 4's line alignment); sets pad. */
    long areaStart(long end) {
        long start = end;
        if (kind == BLOCKED && size >= 64)
            start = end + Math.floorMod(60 - end % 64, 64);
        pad = (int) (start - end);
        return start;
    }

    /** Prepares the probe's constants once the geometry is known. */
    void prepare() {
        if (kind == FUSED) {
            seed = Le.mix64((attempt + 1) * Le.GOLDEN);
            slots = fusedSlots();
        }
    }

    /** The data itself (check_data): bits past m, or past A f, must be 0; compact: the code, then zeros. */
    boolean checkData(byte[] b) {
        if (kind == COMPACT) {
            if (!ef.check(b, data))
                return false;
            for (long i = ef.codeBytes(); i < bytes; i++)
                if (b[data + (int) i] != 0)
                    return false;
            return true;
        }
        if (kind == BLOOM || kind == WBLOOM) {
            if (size % 64 != 0)
                return Le.u64(b, data + (int) wordsBytes(size) - 8) >>> (size % 64) == 0;
            return true;
        }
        if (kind == FUSED) {
            long used = slots * width;
            long end = bytes * 8;
            long bit = used;
            for (; bit < end && (bit & 7) != 0; bit++)
                if (((b[data + (int) (bit >>> 3)] >> (bit & 7)) & 1) != 0)
                    return false;
            for (; bit < end; bit += 8)
                if (b[data + (int) (bit >>> 3)] != 0)
                    return false;
        }
        return true;
    }

    /** The directory fields beside the descriptor of a plain entry (check_entry). */
    boolean checkEntry() {
        switch (kind) {
            case BLOCKED:
                if (capacity == 0 || Long.compareUnsigned(count, capacity) > 0 || !(error > 0.0 && error < 0.5))
                    return false;
                double lim = error * (1.0 + 1e-9);
                return Rates.blockedFprUpto(Le.udouble(capacity) / (double) size, width, lim) <= lim;
            case FUSED:
                return count != 0 && count == capacity && Long.compareUnsigned(count, slots) <= 0
                    && error >= Math.scalb(1.0, -width) && error < 0.5;
            case COMPACT:
                return count == capacity && count == size && error >= rateAt(count) && error < 0.5;
            default:
                return capacity != 0 && Long.compareUnsigned(count, capacity) <= 0 && error > 0.0 && error < 0.5
                    && bloomGeometryHonest();
        }
    }

    /*
     * A bloom entry's geometry is one some writer produces for its capacity
     * and error (docs/format.md, "Reading a value outside the server"): the
     * writers size a segment by SIZING, m = ceil(-n ln p / ln^2 2) and
     * k = round(m/n ln 2) clamped to 1..64, so a segment has at least half
     * SIZING's bits, and its rate at capacity, (1 - e^(-k n/m))^k, is at
     * most twice the larger of p and SIZING's rate, and at most 0.75.
     */
    private boolean bloomGeometryHonest() {
        double n = Le.udouble(capacity);
        double ln2 = 0.6931471805599453;
        double bits = Math.ceil(-n * Math.log(error) / (ln2 * ln2));
        if (!(bits <= (double) MAX_SEGMENT_BITS))
            return false;
        if (bits < 1.0)
            bits = 1.0;
        double kk = (double) Math.round(bits / n * ln2);
        kk = Math.min(Math.max(kk, 1.0), 64.0);
        if (!((double) size * 2.0 >= bits))
            return false;
        double honest = Math.max(bloomRateAt(bits, kk, n), error) * 2.0;
        return bloomRateAt((double) size, (double) width, n) <= Math.min(honest, 0.75);
    }

    private static double bloomRateAt(double m, double k, double n) {
        return Math.pow(1.0 - Math.exp(-k * n / m), k);
    }

    /** Whether this segment holds hash h. */
    boolean has(byte[] b, long h) {
        switch (kind) {
            case BLOOM: {
                long m = size;
                long x = Long.remainderUnsigned(h, m);
                long y = Long.remainderUnsigned(Le.mix64(h) | 1, m);
                for (int i = 0; i < width; i++) {
                    if (((b[data + (int) (x >>> 3)] >> (x & 7)) & 1) == 0)
                        return false;
                    x += y;
                    if (x >= m)
                        x -= m;
                    long inc = i + 1;
                    if (inc >= m)
                        inc %= m;
                    y += inc;
                    if (y >= m)
                        y -= m;
                }
                return true;
            }
            case WBLOOM:
                for (int i = 0; i < width; i++) {
                    long q = Le.mulhiSmall(Le.mix64(h + (i + 1) * Le.GOLDEN), size);
                    if (((b[data + (int) (q >>> 3)] >> (q & 7)) & 1) == 0)
                        return false;
                }
                return true;
            case BLOCKED: {
                int line = data + (int) Le.mulhiSmall(h, size) * 64;
                long w = Le.mix64(h);
                int all = 1;
                for (int j = 0; j < width; j++) {
                    if (j > 0 && j % 7 == 0)
                        w = Le.mix64(w + Le.GOLDEN);
                    int bit = (int) ((w >>> (9 * (j % 7))) & 511);
                    all &= b[line + (bit >>> 3)] >> (bit & 7);
                }
                return (all & 1) != 0;
            }
            case COMPACT:
                return ef.has(Ef.fingerprint(h, width));
            default:
                return fusedHas(b, h);
        }
    }

    private boolean fusedHas(byte[] b, long h) {
        long x = Le.mix64(h + seed);
        long x2 = Le.mix64(x);
        long len = 1L << log2len;
        long mask = len - 1;
        long p0 = Le.mulhiSmall(x, size << log2len);
        long fmask = (1L << width) - 1;
        long v = x2 & fmask;
        v ^= slot(b, p0, fmask);
        v ^= slot(b, (p0 + len) ^ (x & mask), fmask);
        v ^= slot(b, (p0 + 2 * len) ^ ((x >>> 18) & mask), fmask);
        if (arity == 4)
            v ^= slot(b, (p0 + 3 * len) ^ ((x2 >>> 40) & mask), fmask);
        return v == 0;
    }

    private long slot(byte[] b, long i, long fmask) {
        long bit = i * width;
        long byteIdx = bit >>> 3;
        long w = 0;
        if (byteIdx + 8 <= bytes)
            w = Le.u64(b, data + (int) byteIdx);
        else
            for (long k = 0; byteIdx + k < bytes; k++)
                w |= (long) (b[data + (int) (byteIdx + k)] & 0xFF) << (8 * k);
        return (w >>> (bit & 7)) & fmask;
    }

    /** The kind's rate bound with n elements (rate_at). */
    double rateAt(long n) {
        switch (kind) {
            case BLOCKED:
                return Rates.blockedFpr(Le.udouble(n) / (double) size, width);
            case FUSED:
                return Math.scalb(1.0, -width);
            case COMPACT:
                /* n / 2^b, however many of the n are repeats */
                return n == 0 ? 1.0 : Math.scalb(Le.udouble(n), -width);
            default:
                return Math.pow(1.0 - Math.exp(-(double) width * Le.udouble(n) / Le.udouble(size)), (double) width);
        }
    }

    /** The rate of this data for a hash never inserted (rate_of). */
    double rateOf(byte[] b) {
        switch (kind) {
            case BLOCKED: {
                double sum = 0.0;
                for (long l = 0; l < size; l++) {
                    long ones = Le.bitCountWords(b, data + (int) (l * 64), 64);
                    sum += Rates.ipow((double) ones / 512, width);
                }
                return sum / (double) size;
            }
            case FUSED:
                return Math.scalb(1.0, -width);
            case COMPACT:
                return Math.scalb(Le.udouble(ef.distinct), -width);
            default:
                return Math.pow((double) Le.bitCountWords(b, data, wordsBytes(size)) / (double) size, (double) width);
        }
    }

    /** sbf_info's expected fill from the directory count. */
    double expectedFill() {
        if (kind == FUSED || kind == COMPACT)
            return 0.5;
        double bits = (double) size;
        if (kind == BLOCKED)
            bits *= 512;
        return -Math.expm1((double) width * Le.udouble(count) * Math.log1p(-1.0 / bits));
    }

    String name() {
        switch (kind) {
            case BLOCKED:
                return "blocked";
            case FUSED:
                return "fused";
            case COMPACT:
                return "compact";
            default:
                return "bloom";
        }
    }

    /** The 16-byte descriptor as format 4 stores it (the windowed canonical order). */
    byte[] descriptor() {
        byte[] d = new byte[16];
        for (int i = 0; i < 8; i++)
            d[i] = (byte) (size >>> (8 * i));
        d[8] = (byte) kind;
        d[9] = (byte) width;
        d[10] = (byte) arity;
        d[11] = (byte) log2len;
        d[12] = (byte) attempt;
        return d;
    }
}
