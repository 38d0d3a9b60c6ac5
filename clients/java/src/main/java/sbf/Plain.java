package sbf;

/**
 * Plain values: formats 1, 2 (segmented or the exact form), 4 without flag bit 7 and 5
 * (docs/format.md "Plain filters", docs/format4.md section 2, docs/format5.md section 5: version
 * 4's layout whose directory also admits compact segments, and holds at least one): the
 * validator, lookups, the count and sbf_info. Version 5's compact form (flag bit 6) is
 * validated by {@link Compact}; its lookups, count and sbf_info are answered here too, as the
 * core's view answers them.
 */
final class Plain {
    private Plain() {
    }

    static final int HEADER = 36;
    static final int ENTRY = 40;
    static final int EXACT_HEADER = 52;
    static final int EXACT_MAX = 2048;
    static final int MAX_SEGMENTS = 4096;
    static final int F_DENSE = 0x01;
    static final int F_EXACT = 0x02;
    static final int F_OVERLAP = 0x04;
    static final int F_CHAIN = 0x08;

    private static MalformedFilterException bad(String why) {
        return new MalformedFilterException(why);
    }

    static Filter parse(byte[] b) throws MalformedFilterException {
        if (b.length < HEADER)
            throw bad("short buffer");
        int version = b[0] & 0xFF;
        int flags = b[1] & 0xFF;
        int allowed;
        if (version == 1)
            allowed = F_DENSE;
        else if (version == 2)
            allowed = F_DENSE | F_EXACT | F_OVERLAP | F_CHAIN;
        else if (version == 4 || version == 5)
            allowed = F_DENSE | F_OVERLAP | F_CHAIN;
        else
            throw bad("unknown version " + version);
        if ((flags & ~allowed) != 0)
            throw bad("unknown flag bits");
        boolean exact = (flags & F_EXACT) != 0;
        Filter f = new Filter(b, false, exact);
        f.version = version;
        f.flags = flags;
        f.hashId = b[2] & 0xFF;
        if (f.hashId != 1)
            throw bad("unknown hash id");
        f.hllP = b[3] & 0xFF;
        f.growth = Le.u16(b, 4);
        int nseg = Le.u16(b, 6);
        long hllBytes = Le.u32(b, 8);
        f.errorRate = Le.f64(b, 12);
        f.tightening = Le.f64(b, 20);
        f.capacity = Le.u64(b, 28);
        if (f.capacity == 0 || !(f.errorRate > 0.0 && f.errorRate < 0.5)
            || !(f.tightening > 0.0 && f.tightening <= 1.0) || f.growth < 1 || f.growth > 16
            || f.hllP < 4 || f.hllP > 14)
            throw bad("parameter out of range");
        if (exact)
            return parseExact(f, b, nseg, hllBytes);
        if (nseg < 1 || nseg > MAX_SEGMENTS)
            throw bad("segment count out of range");
        if (b.length < HEADER + (long) ENTRY * nseg)
            throw bad("short buffer");
        f.segs = new Seg[nseg];
        long off = HEADER + (long) ENTRY * nseg;
        boolean needsVersion = false;
        for (int i = 0; i < nseg; i++) {
            Seg s = entry(b, version, HEADER + ENTRY * i);
            needsVersion |= s.kind == Seg.COMPACT;
            long start = s.areaStart(off);
            if (start + s.bytes > b.length)
                throw bad("truncated segment data");
            s.data = (int) start;
            off = start + s.bytes;
            f.segs[i] = s;
        }
        /* version 5: the least version that admits its kinds (one code a value) */
        if (version == 5 && !needsVersion)
            throw bad("version 5 without a kind version 4 does not admit");
        if (!Hll.checkSize(hllBytes, (flags & F_DENSE) != 0, f.hllP))
            throw bad("malformed HyperLogLog size");
        long total = off + hllBytes;
        if (total != b.length)
            throw bad(total > b.length ? "truncated" : "length mismatch");
        f.hllBytes = (int) hllBytes;
        f.hllOff = b.length - f.hllBytes;
        for (Seg s : f.segs) {
            for (int i = 0; i < s.pad; i++)
                if (b[s.data - s.pad + i] != 0)
                    throw bad("nonzero padding");
            if (!s.checkData(b))
                throw bad("bits set past the segment's end");
        }
        if (!Hll.check(b, f.hllOff, f.hllBytes, (flags & F_DENSE) != 0, f.hllP))
            throw bad("malformed HyperLogLog");
        return f;
    }

    /** Directory entry at offset e: formats 1-2 (kind 1 fields) or 4-5 (a descriptor). */
    private static Seg entry(byte[] b, int version, int e) throws MalformedFilterException {
        Seg s = new Seg();
        s.capacity = Le.u64(b, e);
        s.count = Le.u64(b, e + 8);
        if (version < 4) {
            s.kind = Seg.BLOOM;
            s.size = Le.u64(b, e + 16);
            s.error = Le.f64(b, e + 24);
            int k = Le.u16(b, e + 32);
            s.width = k <= 255 ? k : 0;
            if (Le.u16(b, e + 34) != 0 || Le.u32(b, e + 36) != 0)
                throw bad("nonzero reserved field");
        } else {
            s.error = Le.f64(b, e + 16);
            descriptor(b, e + 24, s);
            if (s.kind != Seg.BLOOM && s.kind != Seg.BLOCKED && s.kind != Seg.FUSED
                && !(s.kind == Seg.COMPACT && version == 5))
                throw bad("kind not allowed in a plain version-" + version + " value");
        }
        if (!s.checkGeom())
            throw bad("segment geometry out of range");
        s.bytes = s.dataBytes();
        if (s.bytes < 0)
            throw bad("segment too large");
        s.prepare();
        if (!s.checkEntry())
            throw bad("bad segment entry");
        return s;
    }

    /** A 16-byte kind descriptor (docs/format4.md, section 2; kinds 1-5, each allowed where its caller says). */
    static void descriptor(byte[] b, int d, Seg s) throws MalformedFilterException {
        s.size = Le.u64(b, d);
        s.kind = b[d + 8] & 0xFF;
        s.width = b[d + 9] & 0xFF;
        s.arity = b[d + 10] & 0xFF;
        s.log2len = b[d + 11] & 0xFF;
        s.attempt = b[d + 12] & 0xFF;
        if (b[d + 13] != 0 || b[d + 14] != 0 || b[d + 15] != 0)
            throw bad("nonzero reserved descriptor bytes");
        if (s.kind < Seg.BLOOM || s.kind > Seg.COMPACT)
            throw bad("unknown segment kind");
    }

    private static Filter parseExact(Filter f, byte[] b, int nseg, long n) throws MalformedFilterException {
        if ((f.flags & ~(F_EXACT | F_CHAIN)) != 0)
            throw bad("flag not allowed in the exact form");
        if (b.length < EXACT_HEADER)
            throw bad("short buffer");
        if (nseg != 0)
            throw bad("nonzero reserved field");
        f.firstCapacity = Le.u64(b, 36);
        f.firstError = Le.f64(b, 44);
        if (n > EXACT_MAX)
            throw bad("too many hashes");
        if (f.firstCapacity == 0 || !(f.firstError > 0.0 && f.firstError < 0.5)
            || !geometryFits(f.firstCapacity, f.firstError))
            throw bad("bad first segment");
        if (EXACT_HEADER + 8 * n != b.length)
            throw bad("length mismatch");
        f.hashes = new long[(int) n];
        for (int i = 0; i < n; i++) {
            f.hashes[i] = Le.u64(b, EXACT_HEADER + 8 * i);
            if (i > 0 && Long.compareUnsigned(f.hashes[i], f.hashes[i - 1]) <= 0)
                throw bad("hashes not strictly ascending");
        }
        return f;
    }

    /** SIZING's m = ceil(-n ln p / ln^2 2) is at most the largest segment's bits. */
    static boolean geometryFits(long n, double p) {
        double ln2 = 0.6931471805599453;
        double bits = Math.ceil(-Le.udouble(n) * Math.log(p) / (ln2 * ln2));
        return bits <= (double) Seg.MAX_SEGMENT_BITS;
    }

    static boolean contains(Filter f, long h) {
        if (f.ef != null)
            return Compact.contains(f, h);
        if (f.exact)
            return search(f.hashes, h) >= 0;
        byte[] b = f.buf;
        for (Seg s : f.segs)
            if (s.has(b, h))
                return true;
        return false;
    }

    /** Index of h in ascending (unsigned) hashes, or -1. */
    static int search(long[] a, long h) {
        int lo = 0;
        int hi = a.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(a[mid], h);
            if (c < 0)
                lo = mid + 1;
            else if (c > 0)
                hi = mid - 1;
            else
                return mid;
        }
        return -1;
    }

    static String countSource(Filter f) {
        if (f.exact)
            return "exact";
        if (f.ef != null)
            return "fingerprints";
        if (f.version == 1 || (f.flags & F_OVERLAP) != 0)
            return "hll";
        return "directory";
    }

    static double hllEstimate(Filter f) {
        return Hll.estimate(f.buf, f.hllOff, f.hllBytes, (f.flags & F_DENSE) != 0, f.hllP);
    }

    static double cardinality(Filter f) {
        switch (countSource(f)) {
            case "exact":
                return f.hashes.length;
            case "fingerprints":
                return Compact.count(f);
            case "hll":
                return hllEstimate(f);
            default:
                return directoryCount(f);
        }
    }

    /** COUNTS: each segment's count corrected for the skips of the segments before it. */
    static double directoryCount(Filter f) {
        double total = 0.0;
        double pass = 1.0;
        for (Seg s : f.segs) {
            total += segmentDistinct(s, pass);
            pass *= 1.0 - s.rateAt(s.count);
        }
        return total;
    }

    private static double modelFpr(Seg s, double x) {
        if (s.kind == Seg.BLOCKED)
            return Rates.blockedFpr(x / (double) s.size, s.width);
        return Math.pow(1.0 - Math.exp(-(double) s.width * x / (double) s.size), (double) s.width);
    }

    private static double segmentDistinct(Seg s, double pass) {
        final int steps = 64;
        double c = Le.udouble(s.count);
        if (s.count == 0)
            return 0.0;
        if (s.kind == Seg.FUSED || s.kind == Seg.COMPACT)
            return c;   /* complete kinds count their set exactly */
        double h = c / steps;
        double sum = 0.0;
        for (int i = 0; i <= steps; i++) {
            double g = pass * (1.0 - modelFpr(s, h * i));
            double w = (i == 0 || i == steps) ? 1.0 : (i % 2 != 0 ? 4.0 : 2.0);
            sum += w / (g > 1e-9 ? g : 1e-9);
        }
        return sum * h / 3.0;
    }

    static double fprBound(Filter f) {
        if (f.ef != null)
            return Compact.fprBound(f);
        double sum = 0.0;
        if (f.segs != null)
            for (Seg s : f.segs) {
                double r = s.error;
                if (s.kind == Seg.BLOOM) {
                    /* docs/format.md RATE BOUND: the larger of p and the bits' rate */
                    double d = BloomBound.of(f.buf, s, s.count, BloomBound.WORK / f.segs.length);
                    if (d > r)
                        r = d;
                }
                sum += r;
            }
        return sum < 1.0 ? sum : 1.0;
    }

    static double expectedFpr(Filter f) {
        if (f.ef != null)
            return Compact.expectedFpr(f);
        double pass = 1.0;
        if (f.segs != null)
            for (Seg s : f.segs) {
                double p = s.kind == Seg.BLOOM ? Math.pow(s.expectedFill(), (double) s.width) : s.rateAt(s.count);
                pass *= 1.0 - p;
            }
        return 1.0 - pass;
    }

    static String info(Filter f) {
        StringBuilder j = new StringBuilder(256);
        j.append("{\"version\": ").append(f.version).append(", \"hash\": \"xxh3_64\", \"error_rate\": ");
        Json.num(j, f.errorRate);
        j.append(", \"growth\": ").append(f.growth).append(", \"tightening\": ");
        Json.num(j, f.tightening);
        j.append(", \"capacity\": ").append(Long.toUnsignedString(f.capacity));
        /* the exact and compact forms hold no HyperLogLog */
        boolean noHll = f.exact || f.ef != null;
        j.append(", \"hll\": {\"precision\": ").append(f.hllP).append(", \"form\": \"")
            .append(noHll ? "none" : (f.flags & F_DENSE) != 0 ? "dense" : "sparse")
            .append("\", \"bytes\": ").append(noHll ? 0 : f.hllBytes);
        if (!noHll)
            j.append(", \"estimate\": ").append(Json.rounded(hllEstimate(f)));
        j.append("}, \"form\": \"").append(f.exact ? "exact" : f.ef != null ? "compact" : "segments").append('"');
        if (f.exact) {
            j.append(", \"hashes\": ").append(f.hashes.length).append(", \"first_segment\": {\"capacity\": ")
                .append(Long.toUnsignedString(f.firstCapacity)).append(", \"error_rate\": ");
            Json.num(j, f.firstError);
            j.append('}');
        }
        if (f.ef != null)
            j.append(", \"fingerprints\": ").append(f.ef.n).append(", \"fingerprint_bits\": ").append(f.ef.b)
                .append(", \"low_bits\": ").append(f.ef.low);
        if ((f.flags & F_CHAIN) != 0)
            j.append(", \"continues_chain\": true");
        j.append(", \"count_source\": \"").append(countSource(f)).append('"');
        j.append(", \"cardinality\": ").append(Filter.countRound(cardinality(f)));
        j.append(", \"fpr_bound\": ");
        Json.num(j, fprBound(f));
        j.append(", \"fpr_estimate\": ");
        Json.num(j, expectedFpr(f));
        j.append(", \"bytes\": ").append(f.buf.length + 4).append(", \"segments\": [");
        if (f.segs != null)
            for (int i = 0; i < f.segs.length; i++) {
                Seg s = f.segs[i];
                j.append(i > 0 ? ", " : "").append("{\"kind\": \"").append(s.name())
                    .append("\", \"capacity\": ").append(Long.toUnsignedString(s.capacity))
                    .append(", \"count\": ").append(Long.toUnsignedString(s.count));
                if (s.kind == Seg.BLOOM)
                    j.append(", \"bits\": ").append(s.size).append(", \"hashes\": ").append(s.width);
                else if (s.kind == Seg.BLOCKED)
                    j.append(", \"bits\": ").append(s.bytes * 8).append(", \"lines\": ").append(s.size)
                        .append(", \"hashes\": ").append(s.width);
                else if (s.kind == Seg.COMPACT)
                    j.append(", \"bits\": ").append(s.bytes * 8).append(", \"fingerprint_bits\": ").append(s.width)
                        .append(", \"low_bits\": ").append(s.ef.low).append(", \"fingerprints\": ").append(s.size);
                else
                    j.append(", \"bits\": ").append(s.bytes * 8).append(", \"fingerprint_bits\": ").append(s.width)
                        .append(", \"arity\": ").append(s.arity).append(", \"segment_length\": ")
                        .append(1L << s.log2len);
                j.append(", \"fill\": ");
                Json.num(j, s.expectedFill());
                j.append(", \"error_rate\": ");
                Json.num(j, s.error);
                j.append('}');
            }
        return j.append("]}").toString();
    }
}
