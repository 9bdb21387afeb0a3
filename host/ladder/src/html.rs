//! The ladder as a static web page: the leaderboard table and a rating-history plot drawn as
//! inline SVG. One self-contained `index.html`, no script, no server: it opens from the disk.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use othello_arena::event::stats::format_elo;
use othello_arena::ggf::format_date;

use crate::leaderboard::{Leaderboard, Row};
use crate::store::Snapshot;

/// The page's file name in the folder given.
pub const PAGE_FILE_NAME: &str = "index.html";
/// Entries drawn in the history plot at most (the best rated ones).
pub const MAX_PLOTTED_ENTRIES: usize = 16;
/// The plot's size in CSS pixels, and its margins (left for the Elo axis, right for the legend).
const PLOT_WIDTH: f64 = 960.0;
const PLOT_HEIGHT: f64 = 420.0;
const MARGIN_LEFT: f64 = 60.0;
const MARGIN_RIGHT: f64 = 200.0;
const MARGIN_TOP: f64 = 20.0;
const MARGIN_BOTTOM: f64 = 40.0;
/// Horizontal grid lines of the Elo axis, about.
const ELO_TICKS: f64 = 8.0;
/// Line colours, one per plotted entry (distinct on a white background).
const PALETTE: [&str; MAX_PLOTTED_ENTRIES] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
    "#393b79", "#637939", "#e7969c", "#000000", "#6b6ecf", "#b5cf6b",
];

/// Writes `DIR/index.html` and returns its path.
pub fn write_page(dir: &Path, board: &Leaderboard, history: &[Snapshot]) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(PAGE_FILE_NAME);
    let partial = dir.join(format!(".{PAGE_FILE_NAME}.{}.partial", std::process::id()));
    std::fs::write(&partial, page(board, history)).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Text safe inside HTML elements and attributes, and in the SVG (XML) plot: markup escaped, and
/// what a bot's name may smuggle in (controls, bidi overrides, invisible characters, XML's
/// forbidden non-characters) left out, as everywhere ([`othello_arena::text`]).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().filter(|&c| !othello_arena::text::is_hidden_or_control(c)) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page.
pub fn page(board: &Leaderboard, history: &[Snapshot]) -> String {
    let mut html = String::new();
    let anchor = board.anchor.as_deref().map(escape).unwrap_or_else(|| "none yet".to_owned());
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Othello ladder</title>\n\
         <style>\n\
         body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}\n\
         table {{ border-collapse: collapse; margin-bottom: 2em; }}\n\
         th, td {{ padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; text-align: right; }}\n\
         th {{ background: #f3f3f3; }}\n\
         td.name, th.name {{ text-align: left; }}\n\
         tr.failing td {{ color: #a00; }}\n\
         tr.latest td {{ background: #fff3c4; font-weight: bold; }}\n\
         .note {{ color: #666; font-size: 0.9em; }}\n\
         </style>\n</head>\n<body>\n<h1>Othello ladder</h1>\n\
         <p class=\"note\">{} games. Ratings are Elo from a maximum-likelihood Bradley–Terry fit of every game, \
         with {anchor} held at 0. Both ± are 95 % intervals: <em>from the anchor</em> is how well the rating is \
         known on the ladder's scale (its opponents' uncertainty included), <em>among its opponents</em> how \
         precisely its own games place it (their ratings held fixed). A bot that lost every game by a failure \
         is placed at the bottom without a rating.{}</p>\n",
        board.games,
        if board.last_rated.is_some() { " The bot rated last is highlighted." } else { "" }
    );
    html.push_str(&table(&board.rows, board.last_rated));
    html.push_str("<h2>Rating history</h2>\n");
    html.push_str(&history_plot(&board.rows, history));
    html.push_str("\n</body>\n</html>\n");
    html
}

fn table(rows: &[Row], last_rated: Option<i64>) -> String {
    let mut html = String::from(
        "<table>\n<tr><th>Rank</th><th class=\"name\">Bot</th><th class=\"name\">Version</th>\
         <th>Rating ± from the anchor</th><th>± among its opponents</th><th>Games</th><th>Score</th>\
         <th>Failures</th><th>Last played</th></tr>\n",
    );
    for row in rows {
        let mut classes = Vec::new();
        if row.failing {
            classes.push("failing");
        }
        if last_rated == Some(row.entry) {
            classes.push("latest");
        }
        let class = if classes.is_empty() { String::new() } else { format!(" class=\"{}\"", classes.join(" ")) };
        let rank = row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned());
        let placement = row.placement_error.filter(|_| !row.anchor).map(|e| format!("± {e:.1}")).unwrap_or_default();
        let score = row.score.map(|s| format!("{:.1} %", 100.0 * s)).unwrap_or_default();
        let last = row.last_played.map(format_date).unwrap_or_default();
        let _ = writeln!(
            html,
            "<tr{class}><td>{rank}</td><td class=\"name\" title=\"{}\">{}</td><td class=\"name\">{}</td>\
             <td>{}</td><td>{placement}</td><td>{}</td><td>{score}</td><td>{}</td><td>{}</td></tr>",
            escape(&row.locator),
            escape(&row.name),
            escape(&row.version_text()),
            escape(&row.rating_text()),
            row.games,
            row.failures,
            escape(&last),
        );
    }
    html.push_str("</table>\n");
    html
}

/// A point of the history: games in the ladder, rating and its error.
type Point = (f64, f64, f64);

/// The history of the best rated entries as an SVG line plot: games in the ladder across, Elo up.
pub fn history_plot(rows: &[Row], history: &[Snapshot]) -> String {
    let plotted: Vec<&Row> = rows.iter().filter(|r| r.rating.is_some()).take(MAX_PLOTTED_ENTRIES).collect();
    let lines: Vec<(&Row, Vec<Point>)> = plotted
        .iter()
        .map(|row| {
            let points = history
                .iter()
                .filter_map(|s| {
                    s.ratings.iter().find(|(e, _)| *e == row.entry).map(|(_, r)| (s.games as f64, r.elo, r.error))
                })
                .collect();
            (*row, points)
        })
        .filter(|(_, points): &(&Row, Vec<Point>)| !points.is_empty())
        .collect();
    if lines.is_empty() {
        return "<p class=\"note\">No rating history yet: it is saved after each seeding and rating session.</p>\n"
            .to_owned();
    }
    let all = lines.iter().flat_map(|(_, p)| p.iter());
    let (mut x_min, mut x_max, mut y_min, mut y_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y, _) in all {
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_min = y_min.min(y);
        y_max = y_max.max(y);
    }
    if x_max - x_min < 1.0 {
        x_max = x_min + 1.0;
    }
    let y_step = nice_step((y_max - y_min).max(50.0) / ELO_TICKS);
    let (y_min, y_max) = ((y_min / y_step).floor() * y_step, (y_max / y_step).ceil() * y_step);
    let y_max = if y_max <= y_min { y_min + y_step } else { y_max };
    let inner_width = PLOT_WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
    let inner_height = PLOT_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let sx = |x: f64| MARGIN_LEFT + (x - x_min) / (x_max - x_min) * inner_width;
    let sy = |y: f64| MARGIN_TOP + (y_max - y) / (y_max - y_min) * inner_height;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{PLOT_WIDTH}\" height=\"{PLOT_HEIGHT}\" \
         viewBox=\"0 0 {PLOT_WIDTH} {PLOT_HEIGHT}\" role=\"img\" aria-label=\"Rating history\" \
         font-family=\"system-ui, sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(svg, "<rect x=\"0\" y=\"0\" width=\"{PLOT_WIDTH}\" height=\"{PLOT_HEIGHT}\" fill=\"white\"/>");
    // Elo grid and axis labels.
    let mut y = y_min;
    while y <= y_max + 1e-9 {
        let py = sy(y);
        let _ = writeln!(
            svg,
            "<line x1=\"{MARGIN_LEFT}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\" stroke=\"#e4e4e4\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555\">{y:.0}</text>",
            MARGIN_LEFT + inner_width,
            MARGIN_LEFT - 6.0,
            py + 4.0
        );
        y += y_step;
    }
    let bottom = MARGIN_TOP + inner_height;
    let _ = writeln!(
        svg,
        "<line x1=\"{MARGIN_LEFT}\" y1=\"{bottom:.1}\" x2=\"{:.1}\" y2=\"{bottom:.1}\" stroke=\"#888\"/>\
         <text x=\"{MARGIN_LEFT}\" y=\"{:.1}\" fill=\"#555\">{x_min:.0}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555\">{x_max:.0}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">games in the ladder</text>\
         <text x=\"14\" y=\"{:.1}\" fill=\"#555\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">Elo</text>",
        MARGIN_LEFT + inner_width,
        bottom + 16.0,
        MARGIN_LEFT + inner_width,
        bottom + 16.0,
        MARGIN_LEFT + inner_width / 2.0,
        bottom + 32.0,
        MARGIN_TOP + inner_height / 2.0,
        MARGIN_TOP + inner_height / 2.0,
    );
    // One line per entry, a dot per snapshot (hover for the figures), and the legend.
    for (i, (row, points)) in lines.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let name = escape(&format!("{} v{}", row.name, row.version));
        let path: Vec<String> = points.iter().map(|&(x, y, _)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for &(x, y, error) in points {
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"><title>{name}: {} \
                 after {x:.0} games</title></circle>",
                sx(x),
                sy(y),
                format_elo(y, error)
            );
        }
        let ly = MARGIN_TOP + 8.0 + i as f64 * 18.0;
        let lx = MARGIN_LEFT + inner_width + 16.0;
        let _ = writeln!(
            svg,
            "<line x1=\"{lx:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" stroke-width=\"3\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">{name}</text>",
            lx + 18.0,
            lx + 24.0,
            ly + 4.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A round step near `raw`: 1, 2 or 5 times a power of ten.
fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_and_steps_are_round() {
        assert_eq!(escape("<b>&\"x'"), "&lt;b&gt;&amp;&quot;x&#39;");
        // A bot's hostile name: nothing of it acts on the page or breaks the SVG's XML.
        assert_eq!(escape("\u{1b}[2JEvil\u{202E}\u{200B}\u{FFFE}\r<"), "[2JEvil&lt;");
        assert_eq!(nice_step(37.0), 50.0);
        assert_eq!(nice_step(120.0), 200.0);
        assert_eq!(nice_step(10.0), 10.0);
    }
}
