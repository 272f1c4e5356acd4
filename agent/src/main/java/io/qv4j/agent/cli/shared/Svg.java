package io.qv4j.agent.cli.shared;

/** What the commands' SVG drawings share: monospace text, its width, and its escaping. */
public final class Svg {

    /** The width of a character of the drawings' monospace 11 px font, near enough to lay text out by. */
    public static final int CHAR_W = 7;

    private Svg() {
    }

    /** A {@code <text>} element, its content escaped; nothing for an empty string. */
    public static void text(StringBuilder sb, int x, int y, String s, String cls) {
        if (s == null || s.isEmpty()) return;
        sb.append("<text x=\"").append(x).append("\" y=\"").append(y).append('"');
        if (cls != null) sb.append(" class=\"").append(cls).append('"');
        sb.append('>');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(c);
            }
        }
        sb.append("</text>");
    }
}
