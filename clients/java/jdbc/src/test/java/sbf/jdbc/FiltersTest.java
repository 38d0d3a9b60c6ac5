package sbf.jdbc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import sbf.Filter;

/**
 * Filters.get against a server (test.sh runs it in a throwaway cluster of test/pg_tmp.sh,
 * listening on 127.0.0.1:PGPORT): values of every form read in text and in binary transfer,
 * the same bytes as f::bytea and the same answers as the server's. Skipped without a server.
 */
class FiltersTest {
    static Connection text;
    static Connection binary;
    static final String[] FORMS = {
        "sbf_empty()",
        "sbf_add(sbf_empty(), ARRAY['a', 'b', 'sku:123'])",
        "(SELECT sbf_agg('p:' || g) FROM generate_series(1, 300) g)",
        "(SELECT sbf_agg('p:' || g) FROM generate_series(1, 5000) g)",
        "sbf_add(sbf_empty(100), ARRAY(SELECT 'g:' || g FROM generate_series(1, 3000) g))",
        "(SELECT sbf_agg(g::bigint) FROM generate_series(1, 2000) g)",
        "(SELECT sbf_window_agg('w:' || g, '2026-01-01'::timestamptz + g * interval '1 hour', '1 day', 30, 0.01)"
            + " FROM generate_series(1, 2000) g)",
        "sbf_window_empty('1 day', 7)",
    };

    static String url() {
        String port = System.getenv("PGPORT");
        return port == null ? null : "jdbc:postgresql://127.0.0.1:" + port + "/" + System.getenv().getOrDefault("PGDATABASE", "postgres");
    }

    @BeforeAll
    static void connect() throws SQLException {
        String url = url();
        if (url == null)
            return;
        String user = System.getenv().getOrDefault("PGUSER", "postgres");
        try {
            text = DriverManager.getConnection(url + "?user=" + user);
        } catch (SQLException e) {
            return;
        }
        try (Statement s = text.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS sbf");
        }
        long oid;
        try (Statement s = text.createStatement(); ResultSet rs = s.executeQuery("SELECT 'scalablebloom'::regtype::oid")) {
            rs.next();
            oid = rs.getLong(1);
        }
        binary = DriverManager.getConnection(url + "?user=" + user + "&prepareThreshold=-1&binaryTransferEnable=" + oid);
    }

    @AfterAll
    static void close() throws SQLException {
        if (text != null)
            text.close();
        if (binary != null)
            binary.close();
    }

    static void needServer() {
        assumeTrue(text != null, "no server (PGPORT unset or no connection)");
    }

    /** Reads every form through c; checks bytes and answers against the server's. */
    static void readForms(Connection c, boolean expectBinary) throws Exception {
        for (String form : FORMS) {
            String q = "SELECT f, f::bytea, f @> 'p:7'::text, f @> 'zz'::text, # f, sbf_info(f)::text,"
                + " sbf_matches(f, ARRAY['p:1', 'g:5', 'w:9', 'a', 'nope']), f @> 7::bigint,"
                + " sbf_matches(f, ARRAY['w:9', 'w:1999', 'w:1000'], '2026-03-20'::timestamptz)"
                + " FROM (SELECT " + form + " AS f) v";
            try (PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                byte[] raw = rs.getBytes(1);
                assertEquals(expectBinary, raw[0] >= 1 && raw[0] <= 5, () -> form + ": transfer format");
                Filter f = Filters.get(rs, 1);
                assertArrayEquals(rs.getBytes(2), f.toBytes(), form);
                assertEquals(rs.getBoolean(3), f.contains("p:7"), form);
                assertEquals(rs.getBoolean(4), f.contains("zz"), form);
                assertEquals(rs.getLong(5), f.cardinality(), form);
                assertEquals(rs.getInt(7), f.matches(new String[] {"p:1", "g:5", "w:9", "a", "nope"}), form);
                assertEquals(rs.getBoolean(8), f.contains(7L), form);
                assertEquals(rs.getInt(9), f.matches(new String[] {"w:9", "w:1999", "w:1000"},
                    Instant.parse("2026-03-20T00:00:00Z")), form);
                assertEquals(rs.getString(6).length() > 0, f.info().length() > 0);
            }
        }
    }

    @Test
    void textTransfer() throws Exception {
        needServer();
        readForms(text, false);
    }

    @Test
    void binaryTransfer() throws Exception {
        needServer();
        readForms(binary, true);
    }

    @Test
    void nullAndMalformed() throws Exception {
        needServer();
        try (Statement s = text.createStatement();
             ResultSet rs = s.executeQuery("SELECT NULL::scalablebloom, 'sbf1:AQ=='::text, 'sbf1:*'::text")) {
            assertTrue(rs.next());
            assertNull(Filters.get(rs, 1));
            SQLException e = assertThrows(SQLException.class, () -> Filters.get(rs, 2));
            assertEquals("22P03", e.getSQLState());
            assertEquals("22P03", assertThrows(SQLException.class, () -> Filters.get(rs, 3)).getSQLState());
        }
    }

    @Test
    void byLabelAndBytea() throws Exception {
        needServer();
        try (Statement s = text.createStatement();
             ResultSet rs = s.executeQuery("SELECT sbf_add(sbf_empty(), 'x') AS seen, sbf_add(sbf_empty(), 'x')::bytea AS raw")) {
            assertTrue(rs.next());
            assertTrue(Filters.get(rs, "seen").contains("x"));
            assertArrayEquals(Filters.get(rs, "seen").toBytes(), Filters.get(rs, "raw").toBytes());
        }
    }
}
