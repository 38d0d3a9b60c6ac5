package sbf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The cross-language kit (test/kit): every value read, every answer the server gave
 * (contains, matches, cardinality, info as parsed JSON), every malformed value refused, every
 * element hash. Skipped when the kit directory (property sbf.kit) has no kit.txt.
 */
class KitTest {
    static Instant since(String us) {
        if (us.equals("-"))
            return null;
        long v = Long.parseLong(us);
        return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000);
    }

    static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** Membership of one kit element through the public API of its type. */
    static boolean contains(Filter f, String type, String elem, Instant since) {
        switch (type) {
            case "text": {
                byte[] b = Kit.hex(elem);
                String s = text(b);
                if (!Arrays.equals(s.getBytes(StandardCharsets.UTF_8), b))
                    return since == null ? f.contains(b) : f.contains(b, since);
                return since == null ? f.contains(s) : f.contains(s, since);
            }
            case "bigint":
                return since == null ? f.contains(Long.parseLong(elem)) : f.contains(Long.parseLong(elem), since);
            case "bytea":
                return since == null ? f.contains(Kit.hex(elem)) : f.contains(Kit.hex(elem), since);
            default:
                throw new IllegalArgumentException("element type " + type);
        }
    }

    /** Checks every record of a case; returns the failures. */
    static List<String> check(Kit.Case c) {
        List<String> bad = new ArrayList<>();
        Filter f;
        try {
            f = Filter.fromBytes(c.bytes);
        } catch (MalformedFilterException e) {
            bad.add("refused: " + e.getMessage());
            return bad;
        }
        if (!Arrays.equals(f.toBytes(), c.bytes))
            bad.add("toBytes differs");
        /* every value case carries its sbf_info and some lookups: a case with none checks nothing */
        if (c.records.stream().noneMatch(r -> r[0].equals("info"))
            || c.records.stream().noneMatch(r -> r[0].equals("contains")))
            bad.add("no info or contains record to check");
        for (int i = 0; i < c.records.size(); i++) {
            String[] r = c.records.get(i);
            String line = c.lines.get(i);
            switch (r[0]) {
                case "contains": {
                    boolean want = r[4].equals("t");
                    if (contains(f, r[1], r[2], since(r[3])) != want)
                        bad.add(line);
                    break;
                }
                case "matches": {
                    String[] elems = r.length < 4 || r[3].equals("-") ? new String[0] : r[3].split(",", -1);
                    String[] xs = new String[elems.length];
                    for (int k = 0; k < elems.length; k++)
                        xs[k] = text(Kit.hex(elems[k]));
                    Instant s = since(r[1]);
                    int got = s == null ? f.matches(xs) : f.matches(xs, s);
                    if (got != Integer.parseInt(r[2]))
                        bad.add(line + " (got " + got + ")");
                    break;
                }
                case "matches_bigint": {
                    String[] elems = r.length < 4 || r[3].equals("-") ? new String[0] : r[3].split(",", -1);
                    long[] xs = new long[elems.length];
                    for (int k = 0; k < elems.length; k++)
                        xs[k] = Long.parseLong(elems[k]);
                    Instant s = since(r[1]);
                    int got = s == null ? f.matches(xs) : f.matches(xs, s);
                    if (got != Integer.parseInt(r[2]))
                        bad.add(line + " (got " + got + ")");
                    break;
                }
                case "cardinality":
                    if (f.cardinality() != Long.parseLong(r[1]))
                        bad.add(line + " (got " + f.cardinality() + ")");
                    break;
                case "info": {
                    String json = line.substring("info ".length());
                    String got = f.info();
                    String d;
                    try {
                        d = MiniJson.diff(MiniJson.parse(json), MiniJson.parse(got), "$");
                    } catch (RuntimeException e) {
                        d = "unparsable: " + e.getMessage() + " in " + got;
                    }
                    if (d != null)
                        bad.add("info " + d);
                    break;
                }
                default:
                    break;  /* built, and record types this reader does not know */
            }
        }
        return bad;
    }

    @TestFactory
    Stream<DynamicTest> values() throws IOException {
        List<Kit.Case> cases = Kit.cases();
        if (cases.isEmpty())
            return Stream.of(DynamicTest.dynamicTest("kit.txt", () -> assumeTrue(false, "no kit at " + Kit.dir())));
        return cases.stream().filter(c -> c.type.equals("value")).map(c -> DynamicTest.dynamicTest(c.name, () -> {
            List<String> bad = check(c);
            if (!bad.isEmpty())
                fail(c.name + ": " + bad.size() + " wrong of " + c.records.size() + ":\n  "
                    + String.join("\n  ", bad.subList(0, Math.min(bad.size(), 20))));
        }));
    }

    @TestFactory
    Stream<DynamicTest> malformed() throws IOException {
        List<String> ls = Kit.lines("malformed.txt");
        if (ls == null)
            return Stream.of(DynamicTest.dynamicTest("malformed.txt", () -> assumeTrue(false, "no malformed.txt at " + Kit.dir())));
        return ls.stream().map(l -> l.split(" ", -1)).filter(r -> r[0].equals("malformed"))
            .map(r -> DynamicTest.dynamicTest("malformed " + r[1],
                () -> assertThrows(MalformedFilterException.class, () -> Filter.fromBytes(Kit.hex(r.length > 2 ? r[2] : "-")))));
    }

    @TestFactory
    Stream<DynamicTest> hashes() throws IOException {
        List<String> ls = Kit.lines("hashes.txt");
        if (ls == null)
            return Stream.of(DynamicTest.dynamicTest("hashes.txt", () -> assumeTrue(false, "no hashes.txt at " + Kit.dir())));
        return ls.stream().map(l -> l.split(" ", -1)).filter(r -> r[0].equals("hash"))
            .map(r -> DynamicTest.dynamicTest("hash " + r[1] + " " + (r[2].length() > 40 ? r[2].substring(0, 40) + "..." : r[2]), () -> {
                long want = Long.parseUnsignedLong(r[3], 16);
                long got;
                switch (r[1]) {
                    case "bigint":
                        got = Filter.hash(Long.parseLong(r[2]));
                        break;
                    case "text": {
                        byte[] b = Kit.hex(r[2]);
                        String s = text(b);
                        got = Arrays.equals(s.getBytes(StandardCharsets.UTF_8), b) ? Filter.hash(s) : Filter.hash(b);
                        break;
                    }
                    default:
                        got = Filter.hash(Kit.hex(r[2]));
                }
                assertEquals(want, got, () -> String.format("want %016x got %016x", want, Filter.hash(Kit.hex(r[2]))));
            }));
    }

    /** The value's bytes round trip through the text form. */
    @TestFactory
    Stream<DynamicTest> textForm() throws IOException {
        List<Kit.Case> cases = Kit.cases();
        return cases.stream().filter(c -> c.type.equals("value")).limit(200).map(c -> DynamicTest.dynamicTest("text " + c.name, () -> {
            Filter f = Filter.fromBytes(c.bytes);
            assertArrayEquals(c.bytes, Filter.fromText(f.toText()).toBytes());
        }));
    }
}
