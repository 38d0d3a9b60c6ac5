package sbf.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import sbf.Filter;
import sbf.jdbc.Filters;

/**
 * The Java side of test/bench/java_bench.sh (never a test):
 *   kinds DIR C_OUT  ns per probe of the values test/bench/java_kinds.c wrote to DIR, by kind,
 *                    beside the C core's figures in C_OUT (the same hashes; the same counts
 *                    found, checked); thread CPU time, medians of REPS runs
 *   request          the 120-candidate request of test/bench/python_bench.py: in process
 *                    (Filter.matches, and contains per candidate) against the same request in
 *                    SQL over JDBC (a prepared sbf_matches, and the per-candidate booleans), one
 *                    run, wall-clock medians; the answers are checked equal
 */
public final class JavaBench {
    static final int REPS = Integer.getInteger("reps", 7);
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static long sink;

    interface Work {
        long run();
    }

    static double median(double[] t) {
        double[] s = t.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Median over REPS of the ns per unit of w (units per run), thread CPU or wall time. */
    static double time(Work w, long units, boolean cpu) {
        double[] t = new double[REPS];
        for (int r = 0; r < REPS; r++) {
            long t0 = cpu ? CPU.getCurrentThreadCpuTime() : System.nanoTime();
            sink += w.run();
            long t1 = cpu ? CPU.getCurrentThreadCpuTime() : System.nanoTime();
            t[r] = (double) (t1 - t0) / units;
        }
        return median(t);
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("kinds"))
            kinds(Path.of(args[1]), Path.of(args[2]));
        else if (args.length >= 1 && args[0].equals("request"))
            request();
        else
            System.err.println("usage: JavaBench kinds DIR C_OUT | request");
    }

    static void kinds(Path dir, Path cOut) throws Exception {
        System.out.println("| kind | elements | bytes | C probe+ ns | C probe- ns | C batched+ | C batched- "
            + "| Java probe+ ns | Java probe- ns | Java/C probe+ | Java/C probe- | Java hash(String) ns |");
        System.out.println("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        for (String line : Files.readAllLines(cOut)) {
            String[] c = line.trim().split(" ");
            if (c.length != 9)
                continue;
            String kind = c[0];
            int members = Integer.parseInt(c[1]);
            Filter f = Filter.fromBytes(Files.readAllBytes(dir.resolve(kind + ".bin")));
            int q = 1_000_000;
            long[] pos = new long[q];
            long[] neg = new long[q];
            for (int i = 0; i < q; i++) {
                pos[i] = Filter.hash("sku:" + (i % members + 1));
                neg[i] = Filter.hash("miss:" + (i + 1));
            }
            /* the hash alone: 1,024 cached strings ("sku:1".., 5 to 8 ASCII chars) cycled */
            String[] posText = new String[1024];
            for (int i = 0; i < posText.length; i++)
                posText[i] = "sku:" + (i + 1);
            Work wp = () -> {
                long k = 0;
                for (long h : pos)
                    k += f.containsHash(h) ? 1 : 0;
                return k;
            };
            Work wn = () -> {
                long k = 0;
                for (long h : neg)
                    k += f.containsHash(h) ? 1 : 0;
                return k;
            };
            Work ws = () -> {
                long k = 0;
                for (int i = 0; i < q; i++)
                    k += Filter.hash(posText[i & 1023]);
                return k;
            };
            /* warm up the JIT, and the same answers as the core */
            for (int i = 0; i < 3; i++) {
                if (wp.run() != Long.parseLong(c[7]) || wn.run() != Long.parseLong(c[8]))
                    throw new IllegalStateException(kind + ": Java finds other counts than the core");
                ws.run();
            }
            double jp = time(wp, q, true);
            double jn = time(wn, q, true);
            double js = time(ws, q, true);
            double cp = Double.parseDouble(c[3]);
            double cn = Double.parseDouble(c[4]);
            System.out.printf("| %s | %,d | %,d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f |%n",
                kind, members, Long.parseLong(c[2]), cp, cn, Double.parseDouble(c[5]), Double.parseDouble(c[6]),
                jp, jn, jp / cp, jn / cn, js);
        }
    }

    static final int CANDIDATES = 120;
    static final String[] USERS = {"typical", "heavy", "typical windowed", "heavy windowed"};
    static final int[] SEEN = {2_000, 200_000, 3_000, 200_000};

    static List<String[]> requests(int nSeen, long seed) {
        Random r = new Random(seed);
        List<String[]> out = new ArrayList<>();
        for (int q = 0; q < 200; q++) {
            String[] c = new String[CANDIDATES];
            for (int i = 0; i < CANDIDATES; i++)
                c[i] = r.nextDouble() < 0.3 ? "sku:" + ((long) (1 + r.nextInt(nSeen)) * 7919 % 10_000_000)
                    : "sku:" + (10_000_000 + r.nextInt(10_000_000));
            out.add(c);
        }
        return out;
    }

    static void request() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + System.getenv("PGPORT") + "/postgres?user=postgres";
        int inReq = Integer.getInteger("requests", 20_000);
        int sqlReq = Integer.getInteger("sql.requests", 1_000);
        try (Connection conn = DriverManager.getConnection(url)) {
            try (Statement s = conn.createStatement()) {
                s.execute("CREATE EXTENSION IF NOT EXISTS sbf");
                s.execute("DROP TABLE IF EXISTS seen");
                s.execute("CREATE TABLE seen (user_id int PRIMARY KEY, f scalablebloom)");
                s.execute("INSERT INTO seen SELECT 0, sbf_agg('sku:' || (i * 7919 % 10000000)) FROM generate_series(1, 2000) i");
                s.execute("INSERT INTO seen SELECT 1, sbf_agg('sku:' || (i * 7919 % 10000000)) FROM generate_series(1, 200000) i");
                s.execute("INSERT INTO seen SELECT 2, sbf_window_agg('sku:' || (i * 7919 % 10000000),"
                    + " '2026-06-01 00:00+00'::timestamptz - (i % 30) * interval '1 day') FROM generate_series(1, 3000) i");
                s.execute("INSERT INTO seen SELECT 3, sbf_window_agg('sku:' || (i * 7919 % 10000000),"
                    + " '2026-06-01 00:00+00'::timestamptz - (i % 30) * interval '1 day') FROM generate_series(1, 200000) i");
                s.execute("ANALYZE seen");
            }
            String version;
            try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery("SHOW server_version")) {
                rs.next();
                version = rs.getString(1);
            }
            System.out.printf("120-candidate request for one user: in process (Java, sbf.jar) against SQL over JDBC "
                + "(PostgreSQL %s, 127.0.0.1 TCP, prepared statements), wall-clock medians of %d rounds%n%n", version, REPS);
            System.out.println("| user (items seen, bytes) | f.matches ns/request | contains ns/request | SQL sbf_matches ns/request "
                + "| SQL per-candidate ns/request | SQL sbf_matches / f.matches | SQL per-candidate / contains |");
            System.out.println("|---|--:|--:|--:|--:|--:|--:|");
            try (PreparedStatement get = conn.prepareStatement("SELECT f FROM seen WHERE user_id = ?");
                 PreparedStatement count = conn.prepareStatement("SELECT sbf_matches(f, ?::text[]) FROM seen WHERE user_id = ?");
                 PreparedStatement bools = conn.prepareStatement("SELECT (SELECT array_agg(f @> x ORDER BY i) FROM unnest(?::text[])"
                     + " WITH ORDINALITY u(x, i)) FROM seen WHERE user_id = ?")) {
                for (int u = 0; u < USERS.length; u++) {
                    get.setInt(1, u);
                    Filter f;
                    try (ResultSet rs = get.executeQuery()) {
                        rs.next();
                        f = Filters.get(rs, 1);
                    }
                    List<String[]> reqs = requests(SEEN[u], u);
                    int nreq = reqs.size();
                    final int uid = u;
                    /* the same answers both ways */
                    for (int i = 0; i < 20; i++) {
                        String[] c = reqs.get(i);
                        count.setArray(1, conn.createArrayOf("text", c));
                        count.setInt(2, uid);
                        try (ResultSet rs = count.executeQuery()) {
                            rs.next();
                            if (rs.getInt(1) != f.matches(c))
                                throw new IllegalStateException("sbf_matches differs for user " + u);
                        }
                        bools.setArray(1, conn.createArrayOf("text", c));
                        bools.setInt(2, uid);
                        try (ResultSet rs = bools.executeQuery()) {
                            rs.next();
                            Boolean[] b = (Boolean[]) rs.getArray(1).getArray();
                            for (int k = 0; k < c.length; k++)
                                if (b[k] != f.contains(c[k]))
                                    throw new IllegalStateException("f @> x differs for user " + u);
                        }
                    }
                    Work matches = () -> {
                        long k = 0;
                        for (int i = 0; i < inReq; i++)
                            k += f.matches(reqs.get(i % nreq));
                        return k;
                    };
                    Work each = () -> {
                        long k = 0;
                        for (int i = 0; i < inReq; i++)
                            for (String x : reqs.get(i % nreq))
                                k += f.contains(x) ? 1 : 0;
                        return k;
                    };
                    Work sqlCount = () -> {
                        long k = 0;
                        try {
                            for (int i = 0; i < sqlReq; i++) {
                                count.setArray(1, conn.createArrayOf("text", reqs.get(i % nreq)));
                                count.setInt(2, uid);
                                try (ResultSet rs = count.executeQuery()) {
                                    rs.next();
                                    k += rs.getInt(1);
                                }
                            }
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                        return k;
                    };
                    Work sqlBools = () -> {
                        long k = 0;
                        try {
                            for (int i = 0; i < sqlReq; i++) {
                                bools.setArray(1, conn.createArrayOf("text", reqs.get(i % nreq)));
                                bools.setInt(2, uid);
                                try (ResultSet rs = bools.executeQuery()) {
                                    rs.next();
                                    k += ((Boolean[]) rs.getArray(1).getArray()).length;
                                }
                            }
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                        return k;
                    };
                    for (int w = 0; w < 2; w++) {
                        matches.run();
                        each.run();
                    }
                    sqlCount.run();
                    sqlBools.run();
                    double m = time(matches, inReq, false);
                    double e = time(each, inReq, false);
                    double sc = time(sqlCount, sqlReq, false);
                    double sb = time(sqlBools, sqlReq, false);
                    System.out.printf("| %s (%,d, %,d B) | %.0f | %.0f | %.0f | %.0f | %.0f× | %.0f× |%n", USERS[u], SEEN[u],
                        f.toBytes().length, m, e, sc, sb, sc / m, sb / e);
                }
            }
            try (Statement s = conn.createStatement()) {
                s.execute("DROP TABLE seen");
            }
        }
    }
}
