package sbf;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Windowed values: version 3 and version 4 with flag bit 7 (docs/format.md "The windowed
 * form", docs/format4.md section 8): the validator, lookups since a bucket, the count and
 * sbf_info.
 */
final class Window {
    private Window() {
    }

    static final int HEADER = 40;
    static final int F_STARTED = 0x01;
    static final int F_WINDOWED = 0x80;
    static final int MAX_BUCKETS = 1000;
    static final long MAX_SEGMENTS = 65535;
    static final long MAX_WIDTH = 3650L * 86400 * 1000000;

    private static MalformedFilterException bad(String why) {
        return new MalformedFilterException(why);
    }

    static Filter parse(byte[] b) throws MalformedFilterException {
        if (b.length < HEADER)
            throw bad("short buffer");
        int version = b[0] & 0xFF;
        int flags = b[1] & 0xFF;
        int allowed = F_STARTED;
        if (version == 4)
            allowed |= F_WINDOWED;
        if ((flags & ~allowed) != 0 || b[3] != 0 || Le.u16(b, 6) != 0)
            throw bad("unknown flag bits or nonzero reserved field");
        if ((b[2] & 0xFF) != 1)
            throw bad("unknown hash id");
        Filter f = new Filter(b, true, false);
        f.version = version;
        f.flags = flags;
        f.hashId = 1;
        f.buckets = Le.u16(b, 4);
        long nseg = Le.u32(b, 8);
        long npairs = Le.u32(b, 12);
        f.width = Le.u64(b, 16);
        f.newest = Le.u64(b, 24);
        f.errorRate = Le.f64(b, 32);
        if (f.width < 1 || f.width > MAX_WIDTH || f.buckets < 1 || f.buckets > MAX_BUCKETS
            || !(f.errorRate > 0.0 && f.errorRate < 0.5) || !bucketInRange(f.newest, f.width))
            throw bad("parameter out of range");
        if ((flags & F_STARTED) == 0 && (f.newest != 0 || nseg != 0 || npairs != 0))
            throw bad("fields set before the window started");
        if (nseg > MAX_SEGMENTS)
            throw bad("too many segments");
        int entry = version == 3 ? 16 : 24;
        long off = HEADER + nseg * entry;
        if (off > b.length)
            throw bad("short buffer");
        f.segs = new Seg[(int) nseg];
        for (int j = 0; j < nseg; j++) {
            Seg s = entry(b, version, HEADER + entry * j);
            long start = s.areaStart(off);
            if (start > b.length || s.bytes > b.length - start)
                throw bad("truncated segment data");
            s.data = (int) start;
            off = start + s.bytes;
            if (j > 0 && s.age < f.segs[j - 1].age)
                throw bad("segments out of order");
            if (s.age >= f.buckets)
                throw bad("segment age out of range");
            f.segs[j] = s;
        }
        if (off + npairs * 10 != b.length)
            throw bad(off + npairs * 10 > b.length ? "truncated" : "length mismatch");
        checkSegments(f, b);
        plan(f);
        f.pairHash = new long[(int) npairs];
        f.pairAge = new int[(int) npairs];
        int ages = (int) (off + npairs * 8);
        for (int i = 0; i < npairs; i++) {
            f.pairHash[i] = Le.u64(b, (int) off + 8 * i);
            f.pairAge[i] = Le.u16(b, ages + 2 * i);
            if (i > 0 && Long.compareUnsigned(f.pairHash[i], f.pairHash[i - 1]) <= 0)
                throw bad("pairs not strictly ascending");
            if (f.pairAge[i] >= f.buckets)
                throw bad("pair age out of range");
        }
        return f;
    }

    /** t * w and (t + 1) * w fit an int64. */
    static boolean bucketInRange(long t, long w) {
        if (w < 1 || t == Long.MAX_VALUE)
            return false;
        try {
            Math.multiplyExact(t, w);
            Math.multiplyExact(t + 1, w);
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }

    private static Seg entry(byte[] b, int version, int e) throws MalformedFilterException {
        Seg s = new Seg();
        s.age = Le.u16(b, e);
        s.count = Le.u32(b, e + 4);
        if (version == 3) {
            s.kind = Seg.WBLOOM;
            s.width = b[e + 2] & 0xFF;
            s.size = Le.u64(b, e + 8);
            if (b[e + 3] != 0)
                throw bad("nonzero reserved byte");
        } else {
            if (Le.u16(b, e + 2) != 0)
                throw bad("nonzero reserved field");
            Plain.descriptor(b, e + 8, s);
            if (s.kind == Seg.BLOOM || s.kind == Seg.COMPACT)
                throw bad("kind " + s.kind + " in a windowed entry");
        }
        if (!s.checkGeom())
            throw bad("segment geometry out of range");
        s.bytes = s.dataBytes();
        if (s.bytes < 0)
            throw bad("segment too large");
        s.prepare();
        return s;
    }

    /** Data, padding, canonical order and every bucket's budget e/B (rates of the data). */
    private static void checkSegments(Filter f, byte[] b) throws MalformedFilterException {
        double budget = f.errorRate / (double) f.buckets * (1.0 + 1e-9);
        double spent = 0.0;
        for (int j = 0; j < f.segs.length; j++) {
            Seg s = f.segs[j];
            if (!s.checkData(b))
                throw bad("bits set past the segment's end");
            for (int i = 0; i < s.pad; i++)
                if (b[s.data - s.pad + i] != 0)
                    throw bad("nonzero padding");
            if (j > 0 && compare(f, b, f.segs[j - 1], s) >= 0)
                throw bad("segments out of canonical order");
            if (j == 0 || s.age != f.segs[j - 1].age)
                spent = 0.0;
            spent += s.rateOf(b);
            if (!(spent <= budget))
                throw bad("a bucket over its budget");
        }
    }

    /** Canonical order: version 3 (age, m, k, count, bits); version 4 (age, descriptor, count, data). */
    private static int compare(Filter f, byte[] b, Seg x, Seg y) {
        if (x.age != y.age)
            return x.age < y.age ? -1 : 1;
        int c;
        if (f.version == 3) {
            if (x.size != y.size)
                return Long.compareUnsigned(x.size, y.size);
            if (x.width != y.width)
                return x.width < y.width ? -1 : 1;
        } else {
            c = java.util.Arrays.compareUnsigned(x.descriptor(), y.descriptor());
            if (c != 0)
                return c;
        }
        if (x.count != y.count)
            return x.count < y.count ? -1 : 1;
        return java.util.Arrays.compareUnsigned(b, x.data, x.data + (int) x.bytes, b, y.data, y.data + (int) y.bytes);
    }

    /** The largest age a lookup since bucket "since" counts (Long.MIN_VALUE: all); -1: none. */
    static int maxAge(Filter f, long since) {
        if (since == Long.MIN_VALUE || (f.flags & F_STARTED) == 0)
            return f.buckets - 1;
        if (since > f.newest)
            return -1;
        long age = f.newest - since;    /* may wrap: compare unsigned */
        if (Long.compareUnsigned(age, f.buckets) >= 0)
            return f.buckets - 1;
        return (int) age;
    }

    /**
     * The lookup's plan, made once per value: the windowed bloom segments (kind 4) in directory
     * order with their m, data and ages, and per chunk of 64 of them the mask of those whose k
     * ends at probe q; the other kinds (blocked, fused) apart.
     */
    static void plan(Filter f) {
        int n4 = 0;
        for (Seg s : f.segs)
            if (s.kind == Seg.WBLOOM)
                n4++;
        f.wbM = new long[n4];
        f.wbData = new int[n4];
        f.wbAge = new int[n4];
        f.wbKend = new long[(n4 + 63) / 64][];
        f.others = new Seg[f.segs.length - n4];
        int i = 0;
        int o = 0;
        for (Seg s : f.segs) {
            if (s.kind != Seg.WBLOOM) {
                f.others[o++] = s;
                continue;
            }
            f.wbM[i] = s.size;
            f.wbData[i] = s.data;
            f.wbAge[i] = s.age;
            long[] kend = f.wbKend[i >>> 6];
            if (kend == null || kend.length < s.width) {
                long[] k2 = new long[Math.max(s.width, kend == null ? 0 : kend.length)];
                if (kend != null)
                    System.arraycopy(kend, 0, k2, 0, kend.length);
                kend = k2;
                f.wbKend[i >>> 6] = kend;
            }
            kend[s.width - 1] |= 1L << (i & 63);
            i++;
        }
    }

    static boolean contains(Filter f, long h, int maxAge) {
        if (maxAge < 0)
            return false;
        if (f.pairHash.length > 0) {
            int i = Plain.search(f.pairHash, h);
            if (i >= 0 && f.pairAge[i] <= maxAge)
                return true;
        }
        byte[] b = f.buf;
        for (Seg s : f.others)
            if (s.age <= maxAge && s.has(b, h))
                return true;
        /* the kind-4 segments of age <= maxAge: a prefix (ages ascend) */
        int[] ages = f.wbAge;
        long[] ms = f.wbM;
        int[] data = f.wbData;
        int n = ages.length;
        while (n > 0 && ages[n - 1] > maxAge)
            n--;
        for (int base = 0; base < n; base += 64) {
            int c = Math.min(64, n - base);
            long alive = c == 64 ? -1L : (1L << c) - 1;
            long[] kend = f.wbKend[base >>> 6];
            for (int q = 0; alive != 0 && q < kend.length; q++) {
                long r = Le.mix64(h + (q + 1) * Le.GOLDEN);
                long next = 0;
                for (long a = alive; a != 0; a &= a - 1) {
                    int i = Long.numberOfTrailingZeros(a);
                    long pos = Le.mulhiSmall(r, ms[base + i]);
                    next |= (long) ((b[data[base + i] + (int) (pos >>> 3)] >> (pos & 7)) & 1) << i;
                }
                if ((next & kend[q]) != 0)
                    return true;
                alive = next & ~kend[q];
            }
        }
        return false;
    }

    static double cardinality(Filter f) {
        double n = f.pairHash.length;
        for (Seg s : f.segs)
            n += (double) s.count;
        return n;
    }

    private static void bucketStart(StringBuilder j, long bucket, long width) {
        long us;
        try {
            us = Math.multiplyExact(bucket, width);
            Math.subtractExact(us, 946684800000000L);
        } catch (ArithmeticException e) {
            j.append("null");
            return;
        }
        long secs = Math.floorDiv(us, 1_000_000L);
        int micros = (int) Math.floorMod(us, 1_000_000L);
        if (Math.floorDiv(secs, 86400L) + 2440588L < 0) {
            j.append("null");
            return;
        }
        LocalDateTime t = LocalDateTime.ofEpochSecond(secs, micros * 1000, ZoneOffset.UTC);
        j.append(String.format("\"%04d-%02d-%02dT%02d:%02d:%02d.%06dZ\"", t.getYear(), t.getMonthValue(),
            t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), micros));
    }

    static String info(Filter f) {
        byte[] b = f.buf;
        int[] npairs = new int[f.buckets];
        boolean[] used = new boolean[f.buckets];
        for (int a : f.pairAge) {
            npairs[a]++;
            used[a] = true;
        }
        double bound = 0.0;
        for (Seg s : f.segs) {
            used[s.age] = true;
            bound += s.rateOf(b);
        }
        StringBuilder j = new StringBuilder(256);
        j.append("{\"version\": ").append(f.version).append(", \"form\": \"window\", \"hash\": \"xxh3_64\"")
            .append(", \"bucket_us\": ").append(f.width).append(", \"buckets\": ").append(f.buckets)
            .append(", \"error_rate\": ");
        Json.num(j, f.errorRate);
        j.append(", \"newest_bucket_start\": ");
        if ((f.flags & F_STARTED) != 0)
            bucketStart(j, f.newest, f.width);
        else
            j.append("null");
        j.append(", \"pairs\": ").append(f.pairHash.length).append(", \"segments\": ").append(f.segs.length)
            .append(", \"cardinality\": ").append(Math.round(cardinality(f))).append(", \"fpr_bound\": ");
        Json.num(j, bound);
        j.append(", \"bytes\": ").append(b.length + 4).append(", \"window\": [");
        boolean first = true;
        int entry = f.version == 3 ? 16 : 24;
        for (int age = 0; age < f.buckets; age++) {
            if (!used[age])
                continue;
            j.append(first ? "" : ", ");
            first = false;
            long count = npairs[age];
            long bytes = (long) npairs[age] * 10;
            int nseg = 0;
            double fpr = 0.0;
            StringBuilder kinds = new StringBuilder();
            for (Seg s : f.segs) {
                if (s.age != age)
                    continue;
                kinds.append(nseg > 0 ? ", " : "").append('"').append(s.name()).append('"');
                nseg++;
                count += s.count;
                bytes += entry + s.bytes;
                fpr += s.rateOf(b);
            }
            j.append("{\"start\": ");
            if (f.newest < Long.MIN_VALUE + age)
                j.append("null");
            else
                bucketStart(j, f.newest - age, f.width);
            j.append(", \"age\": ").append(age).append(", \"count\": ").append(count)
                .append(", \"pairs\": ").append(npairs[age]).append(", \"segments\": ").append(nseg)
                .append(", \"bytes\": ").append(bytes).append(", \"fpr_bound\": ");
            Json.num(j, fpr);
            j.append(", \"kinds\": [").append(kinds).append("]}");
        }
        return j.append("]}").toString();
    }
}
