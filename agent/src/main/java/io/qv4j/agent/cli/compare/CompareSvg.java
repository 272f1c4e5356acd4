package io.qv4j.agent.cli.compare;

import io.qv4j.agent.cli.shared.Svg;
import java.util.ArrayList;
import java.util.List;

/**
 * A comparison drawn as SVG: one panel per judged figure, the arms side by side in it, each run a
 * dot, the range a bar, the median a tick, the no-agent median a dashed line across, and the
 * verdict under each arm (green better, red worse, grey not resolved). Arms are lettered; a
 * legend names them.
 */
final class CompareSvg {

    private static final int PAD = 10;
    private static final int TITLE = 18;
    private static final int PLOT_H = 160;
    private static final int COLUMN = 64;
    private static final int AXIS = 56;
    private static final int BELOW = 50;
    private static final int LINE = 14;

    private CompareSvg() {
    }

    static String draw(Comparison c) {
        List<Comparison.Figure> figures = new ArrayList<>();
        for (Comparison.Figure f : c.figures()) if (f.lowerIsBetter() != null) figures.add(f);
        int panelW = AXIS + c.arms().size() * COLUMN + PAD;
        int header = PAD + 2 * LINE;
        int panelH = TITLE + PLOT_H + BELOW;
        int legend = c.arms().size() * LINE + PAD;
        String caption = "qv compare: " + String.join(" ", c.command());
        int width = Math.max(PAD + figures.size() * (panelW + PAD), PAD * 2 + Math.min(caption.length(), 120) * Svg.CHAR_W);
        int height = header + panelH + legend + PAD;
        StringBuilder sb = new StringBuilder(1 << 14);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height).append("\" font-family=\"monospace\" font-size=\"11\">\n");
        sb.append("<style>.bg{fill:#fff}.frame{fill:#f7f7f7;stroke:#999}.run{fill:#369;fill-opacity:.7}.range{stroke:#369;stroke-width:3}")
                .append(".median{stroke:#000;stroke-width:2}.base{stroke:#888;stroke-dasharray:4 3}.n{font-weight:bold}")
                .append(".better{fill:#2a2}.worse{fill:#c22}.unresolved{fill:#777}</style>\n");
        sb.append("<rect class=\"bg\" x=\"0\" y=\"0\" width=\"").append(width).append("\" height=\"").append(height).append("\"/>\n");
        Svg.text(sb, PAD, PAD + 11, caption.length() > 120 ? caption.substring(0, 117) + "..." : caption, "n");
        Svg.text(sb, PAD, PAD + 11 + LINE, c.arms().size() + " arms, " + c.rounds() + (c.rounds() == 1 ? " round" : " rounds") + " after a warm-up" + (c.interrupted() ? ", interrupted" : "")
                + "; dots: runs, bar: range, tick: median, dashed: the no-agent median", null);
        for (int i = 0; i < figures.size(); i++) panel(sb, c, figures.get(i), PAD + i * (panelW + PAD), header, panelW);
        int ly = header + panelH + LINE;
        for (int a = 0; a < c.arms().size(); a++) {
            Comparison.Arm arm = c.arms().get(a);
            Svg.text(sb, PAD, ly + a * LINE, letter(a) + "  " + arm.name() + (arm.options() == null ? "" : arm.options().isEmpty() ? " (the agent's)" : ""), null);
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static void panel(StringBuilder sb, Comparison c, Comparison.Figure f, int x, int y, int w) {
        List<Comparison.Line> lines = c.lines(f);
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (int a = 0; a < c.arms().size(); a++) {
            for (double v : c.values(f, a)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        String title = f.name() + (f.name().equals(Comparison.WALL) || f.name().equals(Comparison.CPU) ? " s" : "")
                + (f.lowerIsBetter() ? " (lower is better)" : " (higher is better)");
        int fits = (w - PAD) / Svg.CHAR_W;
        Svg.text(sb, x, y + 12, title.length() > fits ? title.substring(0, fits - 3) + "..." : title, "n");
        int top = y + TITLE;
        sb.append("<rect class=\"frame\" x=\"").append(x + AXIS).append("\" y=\"").append(top).append("\" width=\"").append(w - AXIS - PAD)
                .append("\" height=\"").append(PLOT_H).append("\"/>\n");
        if (lo > hi) {
            Svg.text(sb, x + AXIS + PAD, top + PLOT_H / 2, "no counted runs", null);
            return;
        }
        double span = hi > lo ? hi - lo : Math.max(Math.abs(hi), 1) * 0.1;
        double min = lo - span * 0.08;
        double max = hi + span * 0.08;
        Svg.text(sb, x, top + 10, CompareStats.fmt(CompareStats.round(hi)), null);
        Svg.text(sb, x, top + PLOT_H - 2, CompareStats.fmt(CompareStats.round(lo)), null);
        Comparison.Line base = lines.get(0);
        if (base.spread() != null) {
            int by = y(base.spread().median(), min, max, top);
            sb.append("<line class=\"base\" x1=\"").append(x + AXIS).append("\" y1=\"").append(by).append("\" x2=\"").append(x + w - PAD)
                    .append("\" y2=\"").append(by).append("\"/>\n");
        }
        for (int a = 0; a < lines.size(); a++) {
            Comparison.Line l = lines.get(a);
            int cx = x + AXIS + a * COLUMN + COLUMN / 2;
            if (l.spread() != null) {
                sb.append("<line class=\"range\" x1=\"").append(cx).append("\" y1=\"").append(y(l.spread().min(), min, max, top)).append("\" x2=\"").append(cx)
                        .append("\" y2=\"").append(y(l.spread().max(), min, max, top)).append("\"/>\n");
                int my = y(l.spread().median(), min, max, top);
                sb.append("<line class=\"median\" x1=\"").append(cx - 12).append("\" y1=\"").append(my).append("\" x2=\"").append(cx + 12)
                        .append("\" y2=\"").append(my).append("\"/>\n");
                int k = 0;
                for (double v : c.values(f, a)) {
                    // runs side by side left of the bar, so equal values stay visible
                    sb.append("<circle class=\"run\" cx=\"").append(cx - 6 - 5 * (k++ % 3)).append("\" cy=\"").append(y(v, min, max, top)).append("\" r=\"3\"/>");
                }
                sb.append('\n');
            }
            int ty = top + PLOT_H + LINE;
            Svg.text(sb, cx - Svg.CHAR_W / 2, ty, letter(a), "n");
            String word = l.verdict() == null ? (a == 0 ? "base" : "") : l.verdict().equals(CompareStats.UNRESOLVED) ? "unresolved" : l.verdict();
            String ratio = l.ratio() == null ? "" : "x" + CompareStats.fmt(l.ratio());
            Svg.text(sb, cx - word.length() * Svg.CHAR_W / 2, ty + LINE, word, l.verdict() == null ? null : word);
            Svg.text(sb, cx - ratio.length() * Svg.CHAR_W / 2, ty + 2 * LINE, ratio, null);
        }
    }

    private static int y(double v, double min, double max, int top) {
        return top + (int) Math.round(PLOT_H * (max - v) / (max - min));
    }

    private static String letter(int a) {
        return String.valueOf((char) ('A' + a % 26));
    }
}
