package sbf;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * A scalablebloom value read from its bytes (what {@code f::bytea} gives): every form the
 * server reads (formats 1-5: segmented, the exact form, windowed, version 5's compact form;
 * the segment kinds bloom, blocked, fused and compact), fully validated by
 * {@link #fromBytes(byte[])}. Immutable and safe to share between threads. The format is
 * docs/format.md, docs/format4.md and docs/format5.md (sections 3 and 5); the answers are
 * the server's: {@code contains} is {@code f @> x}, {@code matches} is {@code sbf_matches},
 * {@code cardinality} is {@code # f}, {@code info} is {@code sbf_info(f)}.
 */
public final class Filter {
    /** The longest value that comes in (SBF_MAX_BYTES: its text form fits a 1 GB string). */
    public static final int MAX_BYTES = 804_519_930;

    final byte[] buf;
    final boolean windowed;
    final boolean exact;
    /* plain header (formats 1, 2, 4) */
    int version;
    int flags;
    int hashId;
    int hllP;
    int growth;
    long capacity;
    double errorRate;
    double tightening;
    int hllOff;
    int hllBytes;
    /* the exact form */
    long[] hashes;
    /* the compact form (version 5, flag bit 6): its fingerprints; null for every other form */
    Ef ef;
    long firstCapacity;
    double firstError;
    /* segments (plain, or windowed in directory order) */
    Seg[] segs;
    /* windowed header and pairs */
    int buckets;
    long width;
    long newest;
    long[] pairHash;
    int[] pairAge;
    /* the windowed lookup's plan (Window.plan) */
    long[] wbM;
    int[] wbData;
    int[] wbAge;
    long[][] wbKend;
    Seg[] others;

    Filter(byte[] buf, boolean windowed, boolean exact) {
        this.buf = buf;
        this.windowed = windowed;
        this.exact = exact;
    }

    /**
     * Reads a value, checking every byte as the server's validator does.
     *
     * @throws MalformedFilterException when the bytes are not a value the server accepts
     */
    public static Filter fromBytes(byte[] bytes) throws MalformedFilterException {
        if (bytes == null)
            throw new MalformedFilterException("no bytes");
        if (bytes.length > MAX_BYTES)
            throw new MalformedFilterException("value too large");
        byte[] b = bytes.clone();
        if (b.length >= 1 && (b[0] == 3 || (b[0] == 4 && b.length >= 2 && (b[1] & 0x80) != 0)))
            return Window.parse(b);
        if (Compact.is(b))
            return Compact.parse(b);
        return Plain.parse(b);
    }

    /**
     * Reads a value's text form, {@code sbf1:} followed by the padded base64 of its bytes
     * (docs/format.md; the type's text output, what {@code f::text} and COPY give). Decoding
     * is strict, as the server's: one text form per value.
     *
     * @throws MalformedFilterException when the text is not such a form or the bytes are malformed
     */
    public static Filter fromText(String text) throws MalformedFilterException {
        if (text == null || !text.startsWith("sbf1:"))
            throw new MalformedFilterException("the text form starts with sbf1:");
        String b64 = text.substring(5);
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new MalformedFilterException("invalid base64 in the text form");
        }
        if (!Base64.getEncoder().encodeToString(bytes).equals(b64))
            throw new MalformedFilterException("non-canonical base64 in the text form");
        return fromBytes(bytes);
    }

    /** The value's text form: {@code sbf1:} and the base64 of its bytes. */
    public String toText() {
        return "sbf1:" + Base64.getEncoder().encodeToString(buf);
    }

    /** The value's bytes (a copy). */
    public byte[] toBytes() {
        return buf.clone();
    }

    /** The element hash of a text element: XXH3-64 of its UTF-8 bytes. */
    public static long hash(String s) {
        return Xxh3.hash(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The element hash of a bytea element. */
    public static long hash(byte[] b) {
        return Xxh3.hash(b);
    }

    /** The element hash of a bigint (or integer, smallint) element: its 8 bytes little-endian. */
    public static long hash(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++)
            b[i] = (byte) (v >>> (8 * i));
        return Xxh3.hash(b);
    }

    /** {@code f @> x} for a text element. */
    public boolean contains(String x) {
        return containsHash(hash(x), Long.MIN_VALUE);
    }

    /** {@code f @> x} for a bytea element. */
    public boolean contains(byte[] x) {
        return containsHash(hash(x), Long.MIN_VALUE);
    }

    /** {@code f @> x} for a bigint element. */
    public boolean contains(long x) {
        return containsHash(hash(x), Long.MIN_VALUE);
    }

    /** {@code sbf_contains(f, x, since)}: a windowed value counts the buckets that end after since. */
    public boolean contains(String x, Instant since) {
        return containsHash(hash(x), sinceBucket(since));
    }

    public boolean contains(byte[] x, Instant since) {
        return containsHash(hash(x), sinceBucket(since));
    }

    public boolean contains(long x, Instant since) {
        return containsHash(hash(x), sinceBucket(since));
    }

    /** {@code sbf_matches(f, xs)}: how many non-null elements are (probably) present. */
    public int matches(String[] xs) {
        return matchesSince(xs, Long.MIN_VALUE);
    }

    /** {@code sbf_matches(f, xs, since)}. */
    public int matches(String[] xs, Instant since) {
        return matchesSince(xs, sinceBucket(since));
    }

    /** {@code sbf_matches(f, xs)} for a bigint[]. */
    public int matches(long[] xs) {
        return matchesSince(xs, Long.MIN_VALUE);
    }

    /** {@code sbf_matches(f, xs, since)} for a bigint[]. */
    public int matches(long[] xs, Instant since) {
        return matchesSince(xs, sinceBucket(since));
    }

    private int matchesSince(long[] xs, long sinceBucket) {
        int hits = 0;
        int maxAge = windowed ? Window.maxAge(this, sinceBucket) : 0;
        if (maxAge < 0)
            return 0;
        for (long x : xs)
            if (windowed ? Window.contains(this, hash(x), maxAge) : Plain.contains(this, hash(x)))
                hits++;
        return hits;
    }

    private int matchesSince(String[] xs, long sinceBucket) {
        int hits = 0;
        byte[] scratch = new byte[64];
        int maxAge = windowed ? Window.maxAge(this, sinceBucket) : 0;
        if (maxAge < 0)
            return 0;
        for (String x : xs) {
            if (x == null)
                continue;
            /* ASCII text is its own UTF-8: encoded into one scratch array, no allocation */
            int n = x.length();
            long h;
            if (n <= scratch.length && ascii(x, n, scratch))
                h = Xxh3.hash(scratch, 0, n);
            else
                h = hash(x);
            if (windowed ? Window.contains(this, h, maxAge) : Plain.contains(this, h))
                hits++;
        }
        return hits;
    }

    /** Copies x's chars into b when all are ASCII; false otherwise. */
    private static boolean ascii(String x, int n, byte[] b) {
        for (int i = 0; i < n; i++) {
            char c = x.charAt(i);
            if (c >= 0x80)
                return false;
            b[i] = (byte) c;
        }
        return true;
    }

    /** Membership of an element hash (see {@link #hash(String)}), as {@code f @> x}. */
    public boolean containsHash(long h) {
        return containsHash(h, Long.MIN_VALUE);
    }

    /** Membership of an element hash since a bucket number (Long.MIN_VALUE: every bucket). */
    boolean containsHash(long h, long sinceBucket) {
        if (windowed)
            return Window.contains(this, h, Window.maxAge(this, sinceBucket));
        return Plain.contains(this, h);
    }

    /**
     * The bucket a lookup since this time counts from (sbf_win_since_bucket): null and times
     * before any int64 of microseconds count every bucket, times after it none.
     */
    private long sinceBucket(Instant since) {
        if (since == null)
            throw new NullPointerException("since");
        if (!windowed)
            return Long.MIN_VALUE;
        long us;
        try {
            us = Math.addExact(Math.multiplyExact(since.getEpochSecond(), 1_000_000L), since.getNano() / 1000);
        } catch (ArithmeticException e) {
            return since.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        if (us == Long.MIN_VALUE || us == Long.MAX_VALUE)
            return us;
        return Math.floorDiv(us, width);
    }

    /** {@code # f}: the distinct-count estimate, rounded as the server rounds it. */
    public long cardinality() {
        if (windowed)
            return Math.round(Window.cardinality(this));
        return countRound(Plain.cardinality(this));
    }

    static long countRound(double est) {
        if (!(est >= 0.0))
            return 0;
        if (est >= 9.223372036854775807E18)
            return Long.MAX_VALUE;
        return Math.round(est);
    }

    /** {@code sbf_info(f)}: the same JSON keys and values as the server's. */
    public String info() {
        return windowed ? Window.info(this) : Plain.info(this);
    }

    /** Whether the value is windowed (version 3, or 4 with flag bit 7). */
    public boolean isWindowed() {
        return windowed;
    }

    /** The format version (byte 0). */
    public int version() {
        return buf[0] & 0xFF;
    }

    @Override
    public String toString() {
        return "Filter(version " + version() + ", " + buf.length + " bytes)";
    }
}
