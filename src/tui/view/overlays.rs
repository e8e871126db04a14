//! Panels drawn over a view: the rule form, the what-if before applying,
//! and the trap hints.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{input_window, safe, selected_style, with_cursor};
use crate::tui::app::{Form, FormFocus};
use crate::tui::traps::TrapHint;
use crate::tui::whatif::{Change, Report};

/// How wide a popup is in `area`.
const POPUP_WIDTH: Constraint = Constraint::Percentage(94);

/// The width inside a popup's borders in `area`: what its text wraps at.
fn popup_inner_width(area: Rect) -> u16 {
    area.centered(POPUP_WIDTH, Constraint::Length(1))
        .width
        .saturating_sub(2)
}

fn popup(frame: &mut Frame<'_>, area: Rect, height: u16) -> Rect {
    let rect = area.centered(POPUP_WIDTH, Constraint::Length(height.min(area.height)));
    frame.render_widget(Clear, rect);
    rect
}

pub fn form(frame: &mut Frame<'_>, area: Rect, form: &Form) {
    let focus = |f: FormFocus| form.focus == f;
    let row = |label: &'static str, value: String, f: FormFocus| {
        let mut spans = vec![Span::raw(format!("{label:<9}")).bold()];
        if focus(f) {
            spans.push(Span::styled(value, selected_style()));
        } else {
            spans.push(Span::raw(value));
        }
        Line::from(spans)
    };
    let inner = popup_inner_width(area);
    // Room for an input's text after its label and the cursor: a long
    // name or pattern scrolls sideways (as Explain's inputs do) rather than
    // wrap and push the validation below the popup's edge.
    let room = usize::from(inner.saturating_sub(10)).max(1);
    // The text cursor stands in the input being typed into.
    let text = |input: &tui_input::Input, f: FormFocus| {
        if focus(f) {
            let (shown, cursor) = input_window(input, room);
            with_cursor(&shown, cursor)
        } else {
            // The start, as typing from Home would show it.
            let (shown, _) = input_window(
                &tui_input::Input::new(input.value().into()).with_cursor(0),
                room,
            );
            if shown.chars().count() < input.value().chars().count() {
                let cut: String = shown
                    .chars()
                    .take(shown.chars().count().saturating_sub(1))
                    .collect();
                format!("{}…", safe(&cut))
            } else {
                safe(input.value())
            }
        }
    };
    let mut lines = vec![row(
        "name",
        text(&form.name, FormFocus::Name),
        FormFocus::Name,
    )];
    match form.combined {
        true => {
            lines.push(row(
                "when",
                text(&form.pattern, FormFocus::Pattern),
                FormFocus::Pattern,
            ));
            lines.push(
                Line::from(
                    "         as `match` in a rules file: all = [...], any = [...], not = {...}; \
                     empty: none",
                )
                .dim(),
            );
        }
        false => {
            lines.push(row(
                "field",
                format!("◀ {} ▶", form.field().name()),
                FormFocus::Field,
            ));
            lines.push(row(
                "matcher",
                format!("◀ {} ▶", form.matcher_key()),
                FormFocus::Matcher,
            ));
            lines.push(row(
                "pattern",
                text(&form.pattern, FormFocus::Pattern),
                FormFocus::Pattern,
            ));
            lines.push(row(
                "case",
                if form.case == crate::rules::model::Case::Sensitive {
                    "sensitive"
                } else {
                    "insensitive"
                }
                .into(),
                FormFocus::Case,
            ));
        }
    }
    if form.negated {
        lines.push(
            Line::from("negated  the rule holds when this condition does not (negate, kept)")
                .magenta(),
        );
    }
    lines.push(Line::from(""));
    match &form.error {
        Some(e) => lines.push(Line::from(format!("✗ {}", safe(e))).red()),
        None => lines.push(Line::from("✓ valid").green()),
    }
    for lint in &form.lints {
        lines.push(Line::from(format!("⚠ {}", safe(lint))).yellow());
    }
    if form.error.is_none() {
        preview_lines(form, usize::from(inner), &mut lines);
    }
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
    // Lints and errors may wrap: the popup is as tall as the wrapped text.
    let rows = paragraph.line_count(inner);
    let rect = popup(frame, area, u16::try_from(rows + 2).unwrap_or(u16::MAX));
    frame.render_widget(
        paragraph.block(Block::bordered().title(if form.combined {
            " rule · Tab next · Enter keep · Esc cancel "
        } else {
            // Ctrl-L: the test as a `match` line, to combine with others.
            " rule · Tab next · ←→ choose · ^L combine · Enter keep · Esc cancel "
        })),
        rect,
    );
}

/// A kind of change's counts, split by what the crawl had done with the
/// URLs, naming only what there is: `51 seen: 34 still queued, 16 already
/// fetched, 1 ended otherwise (an error, gone)`; filtered URLs are just
/// seen.
fn tally_text(t: &crate::tui::whatif::Tally) -> String {
    let other = t.seen.saturating_sub(t.queued + t.fetched);
    let parts: Vec<String> = [
        (t.queued, "still queued"),
        (t.fetched, "already fetched"),
        (other, "ended otherwise (an error, gone)"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.len() < 2 {
        // All of one kind: the split says nothing more.
        match (t.queued, t.fetched) {
            (q, _) if q == t.seen && q > 0 => format!("{} seen, all still queued", t.seen),
            (_, f) if f == t.seen && f > 0 => format!("{} seen, all already fetched", t.seen),
            _ => format!("{} seen", t.seen),
        }
    } else {
        format!("{} seen: {}", t.seen, parts.join(", "))
    }
}

/// The live preview: how many logged URLs the rule holds for, and the
/// first few, each on one line.
fn preview_lines(form: &Form, width: usize, lines: &mut Vec<Line<'static>>) {
    if form.previewed.is_none() {
        if form.combined && form.fixed.is_none() {
            let text = if form.negated {
                "holds for no URL (no condition, negated)"
            } else {
                "holds for every URL (no condition)"
            };
            lines.push(Line::from(text).cyan());
        }
        return;
    }
    let Some(p) = &form.preview else {
        lines.push(Line::from("counting the logged URLs it holds for…").dim());
        return;
    };
    let mut text = format!("holds for {} of the {} URLs in the log", p.matched, p.total);
    if p.undecided > 0 {
        text.push_str(&format!(
            ", {} more may once their content type is known",
            p.undecided
        ));
    }
    if !p.done {
        text.push_str(&format!(" (counting: {} read)", p.scanned));
    }
    lines.push(Line::from(text).cyan());
    for url in &p.samples {
        let url = crate::text::without_password(url);
        lines.push(Line::from(super::ellipsized(format!("  {}", safe(&url)), width)).dim());
    }
}

/// The what-if overlay scrolled by `scroll` rows (at most as far as its
/// text overflows the popup). Once the crawl has `ended`, `y` saves the
/// rules for the next run instead of applying them, and it says so.
pub fn whatif(
    frame: &mut Frame<'_>,
    area: Rect,
    report: &Report,
    around: &WhatIfAround<'_>,
    scroll: u16,
) {
    let ended = around.ended;
    let (paragraph, rows) = whatif_text(report, around, popup_inner_width(area));
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    let rect = popup(frame, area, height);
    let overflow = whatif_overflow(rows, rect);
    let title = match (ended, overflow > 0) {
        (false, true) => " what if these edits were applied? · y apply · n back · ↑↓ more ",
        (false, false) => " what if these edits were applied? · y apply · n back ",
        (true, true) => " what if the crawl had run these edits? · y save · n back · ↑↓ more ",
        (true, false) => " what if the crawl had run these edits? · y save · n back ",
    };
    frame.render_widget(
        paragraph
            .scroll((scroll.min(overflow), 0))
            // The keys in the title too: on a short terminal the last
            // line, which names them, is below the overlay's edge.
            .block(Block::bordered().title(title)),
        rect,
    );
}

/// How far the what-if overlay scrolls in `area`: the rows of its text
/// that the popup does not show.
pub fn whatif_max_scroll(report: &Report, around: &WhatIfAround<'_>, area: Rect) -> u16 {
    let (_, rows) = whatif_text(report, around, popup_inner_width(area));
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    let rect = area.centered(POPUP_WIDTH, Constraint::Length(height.min(area.height)));
    whatif_overflow(rows, rect)
}

fn whatif_overflow(rows: usize, rect: Rect) -> u16 {
    let shown = usize::from(rect.height.saturating_sub(2));
    u16::try_from(rows.saturating_sub(shown)).unwrap_or(u16::MAX)
}

/// What the what-if says beside its report.
#[derive(Debug, Default)]
pub struct WhatIfAround<'a> {
    /// The config's start URLs the edited rules refuse, each said.
    pub start_refused: &'a [String],
    /// The crawl has ended: `y` saves for the next run.
    pub ended: bool,
    /// Links met to URLs the rules keep no record of (`log = false`),
    /// which the what-if, reading the log, cannot compare.
    pub unlogged: u64,
}

/// The what-if's text, wrapped, and its rows at `width`.
fn whatif_text(
    report: &Report,
    around: &WhatIfAround<'_>,
    width: u16,
) -> (Paragraph<'static>, usize) {
    let WhatIfAround {
        start_refused,
        ended,
        unlogged,
    } = *around;
    let mut lines = Vec::new();
    // First: it is about the next run, which the counts below do not show.
    for refused in start_refused {
        lines.push(
            Line::from(format!(
                "{} (the next run of this config would not start)",
                safe(refused)
            ))
            .red()
            .bold(),
        );
    }
    if !start_refused.is_empty() {
        lines.push(Line::from(""));
    }
    let progress = if report.done {
        format!("all {} logged URLs compared", report.scanned)
    } else {
        format!(
            "comparing… {} of {} logged URLs",
            report.scanned, report.total
        )
    };
    lines.push(Line::from(progress).bold());
    let changed = report.changed();
    lines.push(Line::from(format!(
        "{} would change verdict under the edited rules",
        crate::text::counted(changed, "URL", "URLs")
    )));
    // A rule without a log (`log = false`) left no record to compare: an
    // edit of it shows no change here, which must not read as "none".
    if unlogged > 0 {
        lines.push(
            Line::from(format!(
                "(and {} met this run to URLs filtered without a record, `log = false`: \
                 not compared)",
                crate::text::counted(unlogged, "link", "links")
            ))
            .dim(),
        );
    }
    for change in Change::ALL {
        let t = report.tally(change);
        lines.push(Line::from(""));
        lines.push(Line::from(format!("{}: {}", change.label(), tally_text(t))));
        for s in &t.samples {
            let s = crate::text::without_password(s);
            lines.push(Line::from(format!("    {}", safe(&s))).dim());
        }
    }
    lines.push(Line::from(""));
    let yes = if ended {
        " save the rules file: the next run on this log judges its URLs by them   "
    } else {
        " apply to the crawl and save the rules file   "
    };
    lines.push(Line::from(vec![
        Span::raw("y / Enter").bold(),
        Span::raw(yes),
        Span::raw("n / Esc").bold(),
        Span::raw(" keep editing"),
    ]));
    // Wrapped lines count: the popup is as tall as the text wraps to.
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: true });
    let rows = paragraph.line_count(width);
    (paragraph, rows)
}

pub fn traps(frame: &mut Frame<'_>, area: Rect, hints: &[&TrapHint], selected: usize) {
    let mut lines = Vec::new();
    for (i, hint) in hints.iter().enumerate() {
        let style = if i == selected {
            selected_style()
        } else {
            Style::new()
        };
        lines.push(Line::from(safe(&hint.summary)).style(style));
        lines.push(Line::from(format!("    rule: {}", safe(&hint.rule.name))).dim());
        for e in &hint.examples {
            let e = crate::text::without_password(e);
            lines.push(Line::from(format!("    e.g. {}", safe(&e))).dim());
        }
    }
    let rect = popup(frame, area, lines.len() as u16 + 2);
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(" trap hints · Enter adds the rule · Esc closes ")),
        rect,
    );
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;

    use crate::tui::whatif::{Report, SAMPLES, Tally};

    /// A report with every sample filled: taller than an 80x24 terminal.
    fn full_report() -> Report {
        let tally = |what: &str| Tally {
            seen: 110,
            queued: 18,
            fetched: 90,
            samples: (0..SAMPLES)
                .map(|i| format!("http://127.0.0.1:8080/{what}/{i}.html — rule 5 (pages)"))
                .collect(),
        };
        Report {
            scanned: 168,
            total: 168,
            done: true,
            tallies: [tally("a"), tally("b"), tally("c")],
        }
    }

    /// Links to URLs filtered without a record cannot be compared: the
    /// what-if says how many, and once the crawl has ended, that `y` saves.
    #[test]
    fn the_what_if_says_what_it_cannot_compare_and_what_y_does_after_the_crawl() {
        let area = Rect::new(0, 1, 100, 39);
        let draw = |around: &super::WhatIfAround<'_>| {
            let mut terminal = Terminal::new(TestBackend::new(100, 40)).expect("terminal");
            terminal
                .draw(|frame| super::whatif(frame, area, &full_report(), around, 0))
                .expect("draw");
            format!("{}", terminal.backend())
        };
        let running = draw(&Default::default());
        assert!(!running.contains("not compared"), "{running}");
        assert!(running.contains("y apply · n back"), "{running}");
        let ended = draw(&super::WhatIfAround {
            ended: true,
            unlogged: 80,
            ..Default::default()
        });
        assert!(
            ended.contains("(and 80 links met this run to URLs filtered without a record, `log"),
            "{ended}"
        );
        assert!(
            ended.contains("what if the crawl had run these edits? · y save · n back"),
            "{ended}"
        );
        assert!(
            ended.contains("save the rules file: the next run"),
            "{ended}"
        );
    }

    #[test]
    fn the_what_if_names_its_keys_even_when_cut_short() {
        let area = Rect::new(0, 1, 80, 21);
        let draw = |scroll: u16| {
            let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
            terminal
                .draw(|frame| {
                    super::whatif(frame, area, &full_report(), &Default::default(), scroll)
                })
                .expect("draw");
            format!("{}", terminal.backend())
        };
        let shown = draw(0);
        // The last line, with the keys, is below the edge…
        assert!(!shown.contains("keep editing"), "{shown}");
        // …and the title still says them, and that it scrolls.
        assert!(shown.contains("y apply · n back · ↑↓"), "{shown}");
        // Scrolled to its end, the last line shows; further is the end.
        let most = super::whatif_max_scroll(&full_report(), &Default::default(), area);
        assert!(most > 0);
        let end = draw(most);
        assert!(end.contains("n / Esc keep"), "{end}");
        assert!(
            end.contains("↑↓ more ─"),
            "the title whole at 80 columns: {end}"
        );
        assert_eq!(draw(most + 5), end);
    }
}
