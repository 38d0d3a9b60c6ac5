package sbf;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Randomized corruption of the kit's values: truncations, flipped bits, bytes set to 0 or 255,
 * mostly in the header and directory where they change the structure. Every result must be
 * refused with MalformedFilterException or read and answer every question without any other
 * exception; the whole run of a value is bounded (a hang guard, not a timing).
 */
class CorruptionTest {
    static final int ROUNDS = Integer.getInteger("sbf.corrupt.rounds", 300);

    static byte[] mutate(byte[] v, SplittableRandom r) {
        int n = v.length;
        switch (r.nextInt(5)) {
            case 0:
                return java.util.Arrays.copyOf(v, r.nextInt(n));
            case 1: {
                byte[] b = java.util.Arrays.copyOf(v, n + 1 + r.nextInt(16));
                return b;
            }
            default: {
                byte[] b = v.clone();
                int flips = 1 + r.nextInt(3);
                for (int i = 0; i < flips; i++) {
                    /* the structure lives in the first bytes: aim there half the time */
                    int at = r.nextBoolean() ? r.nextInt(Math.min(n, 160)) : r.nextInt(n);
                    switch (r.nextInt(3)) {
                        case 0:
                            b[at] ^= (byte) (1 << r.nextInt(8));
                            break;
                        case 1:
                            b[at] = 0;
                            break;
                        default:
                            b[at] = (byte) 0xFF;
                    }
                }
                return b;
            }
        }
    }

    static void exercise(Filter f) {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        f.contains("sku:123");
        f.contains(42L);
        f.contains(new byte[] {1, 2, 3});
        f.contains("sku:123", t);
        f.matches(new String[] {"a", null, "b", "post:9"});
        f.matches(new String[] {"a"}, Instant.EPOCH);
        f.matches(new String[] {"a"}, Instant.MAX);
        f.matches(new String[] {"a"}, Instant.MIN);
        f.cardinality();
        MiniJson.parse(f.info());
        f.toBytes();
    }

    @TestFactory
    Stream<DynamicTest> corruptedKitValues() throws IOException {
        List<Kit.Case> cases = Kit.cases();
        if (cases.isEmpty())
            return Stream.of(DynamicTest.dynamicTest("corruption", () -> assumeTrue(false, "no kit at " + Kit.dir())));
        return cases.stream().filter(c -> c.type.equals("value") && c.bytes.length > 0)
            .map(c -> DynamicTest.dynamicTest("corrupt " + c.name, () -> assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                SplittableRandom r = new SplittableRandom(c.name.hashCode());
                exercise(Filter.fromBytes(c.bytes));
                for (int i = 0; i < ROUNDS; i++) {
                    byte[] m = mutate(c.bytes, r);
                    Filter f;
                    try {
                        f = Filter.fromBytes(m);
                    } catch (MalformedFilterException e) {
                        continue;
                    } catch (RuntimeException e) {
                        fail("round " + i + ": fromBytes threw " + e, e);
                        return;
                    }
                    try {
                        exercise(f);
                    } catch (RuntimeException e) {
                        fail("round " + i + ": a read value threw " + e, e);
                    }
                }
            })));
    }
}
