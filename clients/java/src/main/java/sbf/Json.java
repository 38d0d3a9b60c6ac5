package sbf;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Numbers in sbf_info's JSON. */
final class Json {
    private Json() {
    }

    /** A double as a JSON number (null when not finite, as the server writes it). */
    static void num(StringBuilder j, double d) {
        if (!Double.isFinite(d)) {
            j.append("null");
            return;
        }
        j.append(Double.toString(d));
    }

    /** printf's %.0f: the double's exact value rounded half to even. */
    static String rounded(double d) {
        if (!Double.isFinite(d))
            return "null";
        return new BigDecimal(d).setScale(0, RoundingMode.HALF_EVEN).toPlainString();
    }
}
