package sbf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cross-language test kit's files (docs: /work/notes/KIT_FORMAT.md, test/kit/): their
 * directory is the system property sbf.kit, default ../../test/kit from clients/java.
 */
final class Kit {
    private Kit() {
    }

    static Path dir() {
        return Path.of(System.getProperty("sbf.kit", "../../test/kit"));
    }

    static byte[] hex(String h) {
        if (h.equals("-"))
            return new byte[0];
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    /** One case: a value or hash set and the records that follow it. */
    static final class Case {
        final String type;      /* value or hashset */
        final String name;
        final byte[] bytes;
        final List<String[]> records = new ArrayList<>();
        final List<String> lines = new ArrayList<>();

        Case(String type, String name, byte[] bytes) {
            this.type = type;
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** The non-comment lines of a kit file, or null when it is missing. */
    static List<String> lines(String file) throws IOException {
        Path p = dir().resolve(file);
        if (!Files.isRegularFile(p))
            return null;
        List<String> out = new ArrayList<>();
        for (String l : Files.readAllLines(p, StandardCharsets.UTF_8))
            if (!l.isBlank() && !l.startsWith("#"))
                out.add(l);
        return out;
    }

    static List<Case> cases() throws IOException {
        List<String> ls = lines("kit.txt");
        List<Case> out = new ArrayList<>();
        if (ls == null)
            return out;
        Case cur = null;
        for (String l : ls) {
            String[] f = l.split(" ", -1);
            if (f[0].equals("value") || f[0].equals("hashset")) {
                cur = new Case(f[0], f[1], hex(f[2]));
                out.add(cur);
            } else if (cur != null) {
                cur.records.add(f);
                cur.lines.add(l);
            }
        }
        return out;
    }
}
