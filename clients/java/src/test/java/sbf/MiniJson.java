package sbf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON parser for the tests (objects, arrays, strings, numbers, true, false, null):
 * numbers become Double, objects LinkedHashMap, arrays ArrayList. Plus the comparison the kit
 * asks for: same keys, same values, numbers equal to 1e-12 relative.
 */
final class MiniJson {
    private final String s;
    private int i;

    private MiniJson(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.value();
        p.ws();
        if (p.i != text.length())
            throw new IllegalArgumentException("trailing characters at " + p.i);
        return v;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i)))
            i++;
    }

    private char peek() {
        ws();
        if (i >= s.length())
            throw new IllegalArgumentException("unexpected end");
        return s.charAt(i);
    }

    private void expect(char c) {
        if (peek() != c)
            throw new IllegalArgumentException("expected " + c + " at " + i);
        i++;
    }

    private Object value() {
        char c = peek();
        if (c == '{') {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                String k = string();
                expect(':');
                if (m.put(k, value()) != null)
                    throw new IllegalArgumentException("duplicate key " + k);
                if (peek() == ',') {
                    i++;
                    continue;
                }
                expect('}');
                return m;
            }
        }
        if (c == '[') {
            List<Object> a = new ArrayList<>();
            i++;
            if (peek() == ']') {
                i++;
                return a;
            }
            while (true) {
                a.add(value());
                if (peek() == ',') {
                    i++;
                    continue;
                }
                expect(']');
                return a;
            }
        }
        if (c == '"')
            return string();
        for (String lit : new String[] {"true", "false", "null"})
            if (s.startsWith(lit, i)) {
                i += lit.length();
                return lit.equals("null") ? null : Boolean.valueOf(lit);
            }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0)
            i++;
        if (start == i)
            throw new IllegalArgumentException("unexpected " + c + " at " + i);
        return Double.valueOf(s.substring(start, i));
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"')
                return b.toString();
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            } else
                b.append(c);
        }
    }

    /** Null when equal (numbers to 1e-12 relative), else where and how they differ. */
    static String diff(Object want, Object got, String path) {
        if (want instanceof Double && got instanceof Double) {
            double w = (Double) want;
            double g = (Double) got;
            if (w == g || Math.abs(w - g) <= 1e-12 * Math.max(Math.abs(w), Math.abs(g)))
                return null;
            return path + ": want " + w + ", got " + g;
        }
        if (want instanceof Map && got instanceof Map) {
            Map<?, ?> w = (Map<?, ?>) want;
            Map<?, ?> g = (Map<?, ?>) got;
            if (!w.keySet().equals(g.keySet()))
                return path + ": keys " + w.keySet() + " against " + g.keySet();
            for (Object k : w.keySet()) {
                String d = diff(w.get(k), g.get(k), path + "." + k);
                if (d != null)
                    return d;
            }
            return null;
        }
        if (want instanceof List && got instanceof List) {
            List<?> w = (List<?>) want;
            List<?> g = (List<?>) got;
            if (w.size() != g.size())
                return path + ": " + w.size() + " items against " + g.size();
            for (int k = 0; k < w.size(); k++) {
                String d = diff(w.get(k), g.get(k), path + "[" + k + "]");
                if (d != null)
                    return d;
            }
            return null;
        }
        if (want == null ? got == null : want.equals(got))
            return null;
        return path + ": want " + want + ", got " + got;
    }
}
