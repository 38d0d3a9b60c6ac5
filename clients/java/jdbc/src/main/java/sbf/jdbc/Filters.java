package sbf.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;

import sbf.Filter;
import sbf.MalformedFilterException;

/**
 * Reads {@code scalablebloom} columns through the PostgreSQL JDBC driver, in either transfer
 * format: text ({@code sbf1:} and base64, the driver's default) or binary (the value's bytes:
 * the driver's {@code binaryTransferEnable} naming the type's OID), and also a column cast to
 * {@code bytea}.
 *
 * <pre>{@code
 * try (PreparedStatement ps = conn.prepareStatement("SELECT seen FROM user_seen WHERE user_id = ?")) {
 *     ps.setLong(1, userId);
 *     try (ResultSet rs = ps.executeQuery()) {
 *         if (rs.next()) {
 *             Filter seen = Filters.get(rs, 1);
 *             int already = seen.matches(new String[] {"post:1", "post:2"});
 *         }
 *     }
 * }
 * }</pre>
 */
public final class Filters {
    private Filters() {
    }

    /** SQLSTATE of a malformed value (invalid_binary_representation), as the server's. */
    public static final String MALFORMED = "22P03";

    /**
     * The value of a column as a {@link Filter}, or null when it is SQL NULL.
     *
     * @throws SQLException from the driver, or with SQLState 22P03 (its cause a
     *         {@link MalformedFilterException}) when the value is malformed
     */
    public static Filter get(ResultSet rs, int column) throws SQLException {
        return parse(rs.getBytes(column));
    }

    /** The same by column label. */
    public static Filter get(ResultSet rs, String column) throws SQLException {
        return parse(rs.getBytes(column));
    }

    /**
     * The driver gives a column's raw bytes: the text form's characters in text transfer, the
     * value's bytes in binary transfer or for a bytea. A value's byte 0 is its version (1 to 5),
     * never the 's' that starts the text form.
     */
    static Filter parse(byte[] raw) throws SQLException {
        if (raw == null)
            return null;
        try {
            if (raw.length >= 5 && raw[0] == 's' && raw[1] == 'b' && raw[2] == 'f' && raw[3] == '1' && raw[4] == ':')
                return Filter.fromText(new String(raw, StandardCharsets.US_ASCII));
            return Filter.fromBytes(raw);
        } catch (MalformedFilterException e) {
            throw new SQLException("malformed scalablebloom value: " + e.getMessage(), MALFORMED, e);
        }
    }
}
