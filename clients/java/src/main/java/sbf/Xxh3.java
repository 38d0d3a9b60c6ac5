package sbf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH3_64bits with seed 0: the element hash of hash id 1 (docs/format.md, HASH).
 * Written from the algorithm's description in xxHash 0.8's xxhash.h (Yann Collet; the
 * constants and the default 192-byte secret are the algorithm's), checked against vectors
 * of the C library (XxhTest) and the kit's hashes.txt.
 */
public final class Xxh3 {
    private Xxh3() {
    }

    private static final long P32_1 = 0x9E3779B1L;
    private static final long P32_2 = 0x85EBCA77L;
    private static final long P32_3 = 0xC2B2AE3DL;
    private static final long P64_1 = 0x9E3779B185EBCA87L;
    private static final long P64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P64_3 = 0x165667B19E3779F9L;
    private static final long P64_4 = 0x85EBCA77C2B2AE63L;
    private static final long P64_5 = 0x27D4EB2F165667C5L;
    private static final long PMX_1 = 0x165667919E3779F9L;
    private static final long PMX_2 = 0x9FB21C651E98DF25L;

    private static final byte[] SECRET = hex(
        "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
        + "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
        + "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
        + "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
        + "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
        + "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e");
    private static final int SECRET_SIZE = 192;

    private static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    private static final VarHandle LE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /** The little-endian 64-bit word at b[i] (any alignment, the same on every host). */
    static long r64(byte[] b, int i) {
        return (long) LE64.get(b, i);
    }

    /** The little-endian unsigned 32-bit word at b[i]. */
    static long r32(byte[] b, int i) {
        return (int) LE32.get(b, i) & 0xFFFFFFFFL;
    }

    /** The high 64 bits of the unsigned 128-bit product a * b. */
    static long mulhi(long a, long b) {
        return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
    }

    private static long fold(long a, long b) {
        return (a * b) ^ mulhi(a, b);
    }

    private static long avalanche64(long h) {
        h ^= h >>> 33;
        h *= P64_2;
        h ^= h >>> 29;
        h *= P64_3;
        return h ^ (h >>> 32);
    }

    private static long avalanche(long h) {
        h ^= h >>> 37;
        h *= PMX_1;
        return h ^ (h >>> 32);
    }

    private static long rrmxmx(long h, int len) {
        h ^= Long.rotateLeft(h, 49) ^ Long.rotateLeft(h, 24);
        h *= PMX_2;
        h ^= (h >>> 35) + len;
        h *= PMX_2;
        return h ^ (h >>> 28);
    }

    private static long mix16(byte[] in, int off, int s) {
        return fold(r64(in, off) ^ r64(SECRET, s), r64(in, off + 8) ^ r64(SECRET, s + 8));
    }

    /** XXH3_64bits(b) with seed 0. */
    public static long hash(byte[] b) {
        return hash(b, 0, b.length);
    }

    /** XXH3_64bits of b[off, off + len) with seed 0. */
    public static long hash(byte[] b, int off, int len) {
        if (len <= 16)
            return small(b, off, len);
        if (len <= 128)
            return upTo128(b, off, len);
        if (len <= 240)
            return upTo240(b, off, len);
        return longHash(b, off, len);
    }

    private static final long FLIP_9_16_LO = r64(SECRET, 24) ^ r64(SECRET, 32);
    private static final long FLIP_9_16_HI = r64(SECRET, 40) ^ r64(SECRET, 48);
    private static final long FLIP_4_8 = r64(SECRET, 8) ^ r64(SECRET, 16);

    private static long small(byte[] b, int off, int len) {
        if (len > 8) {
            long lo = r64(b, off) ^ FLIP_9_16_LO;
            long hi = r64(b, off + len - 8) ^ FLIP_9_16_HI;
            long acc = len + Long.reverseBytes(lo) + hi + fold(lo, hi);
            return avalanche(acc);
        }
        if (len >= 4) {
            long in1 = r32(b, off);
            long in2 = r32(b, off + len - 4);
            long keyed = (in2 + (in1 << 32)) ^ FLIP_4_8;
            return rrmxmx(keyed, len);
        }
        if (len > 0) {
            long c1 = b[off] & 0xFF;
            long c2 = b[off + (len >> 1)] & 0xFF;
            long c3 = b[off + len - 1] & 0xFF;
            long combined = (c1 << 16) | (c2 << 24) | c3 | ((long) len << 8);
            long flip = (r32(SECRET, 0) ^ r32(SECRET, 4));
            return avalanche64(combined ^ flip);
        }
        return avalanche64(r64(SECRET, 56) ^ r64(SECRET, 64));
    }

    private static long upTo128(byte[] b, int off, int len) {
        long acc = len * P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) {
                    acc += mix16(b, off + 48, 96);
                    acc += mix16(b, off + len - 64, 112);
                }
                acc += mix16(b, off + 32, 64);
                acc += mix16(b, off + len - 48, 80);
            }
            acc += mix16(b, off + 16, 32);
            acc += mix16(b, off + len - 32, 48);
        }
        acc += mix16(b, off, 0);
        acc += mix16(b, off + len - 16, 16);
        return avalanche(acc);
    }

    private static long upTo240(byte[] b, int off, int len) {
        long acc = len * P64_1;
        int rounds = len / 16;
        for (int i = 0; i < 8; i++)
            acc += mix16(b, off + 16 * i, 16 * i);
        acc = avalanche(acc);
        for (int i = 8; i < rounds; i++)
            acc += mix16(b, off + 16 * i, 16 * (i - 8) + 3);
        acc += mix16(b, off + len - 16, 136 - 17);
        return avalanche(acc);
    }

    private static void stripe(long[] acc, byte[] b, int in, int s) {
        for (int i = 0; i < 8; i++) {
            long v = r64(b, in + 8 * i);
            long k = v ^ r64(SECRET, s + 8 * i);
            acc[i ^ 1] += v;
            acc[i] += (k & 0xFFFFFFFFL) * (k >>> 32);
        }
    }

    private static void scramble(long[] acc) {
        for (int i = 0; i < 8; i++) {
            long a = acc[i];
            a ^= a >>> 47;
            a ^= r64(SECRET, SECRET_SIZE - 64 + 8 * i);
            acc[i] = a * P32_1;
        }
    }

    private static long longHash(byte[] b, int off, int len) {
        long[] acc = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
        int stripesPerBlock = (SECRET_SIZE - 64) / 8;
        int blockLen = 64 * stripesPerBlock;
        int blocks = (len - 1) / blockLen;
        for (int n = 0; n < blocks; n++) {
            for (int s = 0; s < stripesPerBlock; s++)
                stripe(acc, b, off + n * blockLen + 64 * s, 8 * s);
            scramble(acc);
        }
        int stripes = ((len - 1) - blockLen * blocks) / 64;
        for (int s = 0; s < stripes; s++)
            stripe(acc, b, off + blocks * blockLen + 64 * s, 8 * s);
        stripe(acc, b, off + len - 64, SECRET_SIZE - 64 - 7);
        long r = len * P64_1;
        for (int i = 0; i < 4; i++)
            r += fold(acc[2 * i] ^ r64(SECRET, 11 + 16 * i), acc[2 * i + 1] ^ r64(SECRET, 11 + 16 * i + 8));
        return avalanche(r);
    }
}
