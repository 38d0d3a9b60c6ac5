package sbf;

/**
 * The bytes given to {@link Filter#fromBytes(byte[])} are not a valid scalablebloom value
 * (docs/format.md, "What a reader must reject", and docs/format4.md, section 9): the server
 * refuses the same bytes with SQLSTATE 22P03 (or 54000 when too large).
 */
public class MalformedFilterException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedFilterException(String message) {
        super(message);
    }
}
