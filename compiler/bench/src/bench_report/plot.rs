//! Figures as data ([`Chart`]) and their SVG drawing (plotters' SVG
//! backend: text is written as `<text>` elements, so no font or system
//! library is needed). Pure: chart in, SVG text out.

use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// One line of a chart: `(x, y)` points in x order; missing measurements
/// are simply absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A horizontal reference line (a target), drawn dashed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HLine {
    pub y: f64,
    pub label: String,
}

/// A line chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub series: Vec<Series>,
    pub hlines: Vec<HLine>,
}

/// Width and height of every figure, in SVG pixels.
pub const SIZE: (u32, u32) = (760, 440);

/// Series colours (colour-blind-safe Okabe-Ito palette).
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// An axis range `[lo, hi]` covering `values` with some margin; log axes
/// keep to positive values and extend to whole decades' neighbours.
pub fn axis_range(values: &[f64], log: bool, include_zero: bool) -> (f64, f64) {
    let vals: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    if vals.is_empty() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if log {
        // A factor of 1.5 either side, so end points are not on the frame.
        (lo / 1.5, hi * 1.5)
    } else {
        let lo = if include_zero { lo.min(0.0) } else { lo };
        let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
        let lo = if include_zero && lo >= 0.0 {
            0.0
        } else {
            lo - 0.05 * span
        };
        (lo, hi + 0.08 * span)
    }
}

/// A tick label: `K` for whole thousands, integers from 100 up, else up
/// to three decimals without trailing zeros.
pub fn tick_label(v: f64) -> String {
    // Axis steps are computed in floating point: 0.30000000000000004.
    let v = (v * 1e6).round() / 1e6;
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1000.0 && (v / 1000.0).fract() == 0.0 {
        format!("{}K", v / 1000.0)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A tick label on a log axis only for 1, 2 and 5 times a power of ten
/// (the axis puts a tick at every integer multiple, too many to label).
pub fn log_tick_label(v: f64, log: bool) -> String {
    if !log || v <= 0.0 {
        return tick_label(v);
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    if [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 1e-6)
    {
        tick_label(v)
    } else {
        String::new()
    }
}

/// Draw `chart` as an SVG document.
#[cfg(test)]
pub fn render_svg(chart: &Chart) -> Result<String, String> {
    render_panels(std::slice::from_ref(chart))
}

/// Draw `charts` side by side in one SVG document.
pub fn render_panels(charts: &[Chart]) -> Result<String, String> {
    let n = charts.len().max(1) as u32;
    let size = if n == 1 {
        SIZE
    } else {
        (PANEL_WIDTH * n, SIZE.1)
    };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((1, n as usize));
        for (chart, area) in charts.iter().zip(&areas) {
            draw_chart(area, chart)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// Width of one panel of a multi-panel figure.
pub const PANEL_WIDTH: u32 = 560;

fn draw_chart(area: &DrawingArea<SVGBackend<'_>, Shift>, chart: &Chart) -> Result<(), String> {
    let xs: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let mut ys: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    ys.extend(chart.hlines.iter().map(|h| h.y));
    let (x0, x1) = axis_range(&xs, chart.x_log, false);
    let (y0, y1) = axis_range(&ys, chart.y_log, true);
    let legend = legend_corner(chart, (x0, x1), (y0, y1));
    match (chart.x_log, chart.y_log) {
        (false, false) => draw(area, chart, x0..x1, y0..y1, legend),
        (true, false) => draw(area, chart, (x0..x1).log_scale(), y0..y1, legend),
        (false, true) => draw(area, chart, x0..x1, (y0..y1).log_scale(), legend),
        (true, true) => draw(
            area,
            chart,
            (x0..x1).log_scale(),
            (y0..y1).log_scale(),
            legend,
        ),
    }
}

/// The upper corner whose (left or right) 40% × top 40% of the plot holds
/// fewer points: where the legend hides least.
fn legend_corner(chart: &Chart, xr: (f64, f64), yr: (f64, f64)) -> SeriesLabelPosition {
    let norm = |v: f64, (lo, hi): (f64, f64), log: bool| {
        if log {
            (v.max(1e-300).ln() - lo.ln()) / (hi.ln() - lo.ln())
        } else {
            (v - lo) / (hi - lo)
        }
    };
    let (mut left, mut right) = (0, 0);
    for (x, y) in chart.series.iter().flat_map(|s| s.points.iter()) {
        let (nx, ny) = (norm(*x, xr, chart.x_log), norm(*y, yr, chart.y_log));
        if ny > 0.6 {
            if nx < 0.4 {
                left += 1;
            } else if nx > 0.6 {
                right += 1;
            }
        }
    }
    if right < left {
        SeriesLabelPosition::UpperRight
    } else {
        SeriesLabelPosition::UpperLeft
    }
}

fn draw<X, Y>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &Chart,
    x: X,
    y: Y,
    legend: SeriesLabelPosition,
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut cc = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)
        .map_err(|e| err(&e))?;
    cc.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| log_tick_label(*v, chart.x_log))
        .y_label_formatter(&|v| log_tick_label(*v, chart.y_log))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, s) in chart.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let style = ShapeStyle::from(&colour).stroke_width(2);
        cc.draw_series(LineSeries::new(s.points.iter().copied(), style))
            .map_err(|e| err(&e))?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        cc.draw_series(PointSeries::of_element(
            s.points.iter().copied(),
            4,
            ShapeStyle::from(&colour).filled(),
            &|c, size, st| EmptyElement::at(c) + Circle::new((0, 0), size, st),
        ))
        .map_err(|e| err(&e))?;
    }
    for h in &chart.hlines {
        let (xa, xb) = {
            let r = cc.x_range();
            (r.start, r.end)
        };
        let grey = RGBColor(120, 120, 120);
        let style = ShapeStyle::from(&grey).stroke_width(1);
        // Dashes as short segments (the SVG backend has no dash style).
        let n = 60;
        let segs: Vec<PathElement<(f64, f64)>> = (0..n)
            .filter(|i| i % 2 == 0)
            .map(|i| {
                let at = |k: usize| {
                    if chart.x_log {
                        xa * (xb / xa).powf(k as f64 / n as f64)
                    } else {
                        xa + (xb - xa) * k as f64 / n as f64
                    }
                };
                PathElement::new(vec![(at(i), h.y), (at(i + 1), h.y)], style)
            })
            .collect();
        cc.draw_series(segs)
            .map_err(|e| err(&e))?
            .label(h.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 7, y)], style));
    }
    if chart.series.len() + chart.hlines.len() > 1 {
        cc.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(("sans-serif", 13))
            .position(legend)
            .draw()
            .map_err(|e| err(&e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(x_log: bool, y_log: bool) -> Chart {
        Chart {
            title: "Fmax vs cluster size".into(),
            x_label: "cluster size (queries)".into(),
            y_label: "Fmax (MHz)".into(),
            x_log,
            y_log,
            series: vec![
                Series {
                    label: "pipelined input".into(),
                    points: vec![(32.0, 180.0), (256.0, 160.5), (2048.0, 120.25)],
                },
                Series {
                    label: "broadcast input".into(),
                    points: vec![(32.0, 150.0), (2048.0, 70.0)],
                },
            ],
            hlines: vec![HLine {
                y: 150.0,
                label: "target 150 MHz".into(),
            }],
        }
    }

    #[test]
    fn svg_has_series_axis_labels_and_target() {
        for (xl, yl) in [(false, false), (true, false), (false, true), (true, true)] {
            let svg = render_svg(&chart(xl, yl)).unwrap();
            assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
            assert!(svg.trim_end().ends_with("</svg>"));
            for text in [
                "Fmax vs cluster size",
                "cluster size (queries)",
                "Fmax (MHz)",
                "pipelined input",
                "broadcast input",
                "target 150 MHz",
            ] {
                assert!(svg.contains(text), "{text} missing (log {xl} {yl})");
            }
            // One circle per point: 3 + 2.
            assert_eq!(svg.matches("<circle").count(), 5, "log {xl} {yl}");
        }
    }

    #[test]
    fn log_axis_ticks_are_labelled_in_counts() {
        let svg = render_svg(&chart(true, false)).unwrap();
        // Text elements hold their text on a line of its own.
        assert!(
            svg.contains("\n100\n") && svg.contains("\n1K\n"),
            "decade ticks"
        );
    }

    #[test]
    fn panels_side_by_side() {
        let mut b = chart(false, false);
        b.title = "Gbit/s".into();
        b.series.truncate(1);
        let svg = render_panels(&[chart(true, false), b]).unwrap();
        assert!(svg.contains("Fmax vs cluster size") && svg.contains("Gbit/s"));
        assert!(svg.contains(&format!("width=\"{}\"", 2 * PANEL_WIDTH)));
        assert_eq!(svg.matches("<circle").count(), 5 + 3);
    }

    #[test]
    fn legend_goes_where_the_data_is_not() {
        let mut c = chart(false, false);
        let r = |c: &Chart| {
            let xs: Vec<f64> = c
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .collect();
            let ys: Vec<f64> = c
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .collect();
            legend_corner(
                c,
                axis_range(&xs, false, false),
                axis_range(&ys, false, true),
            )
        };
        // Falling curves (high on the left): legend on the right.
        assert!(matches!(r(&c), SeriesLabelPosition::UpperRight));
        for s in &mut c.series {
            for p in &mut s.points {
                p.1 = 300.0 - p.1;
            }
        }
        assert!(matches!(r(&c), SeriesLabelPosition::UpperLeft));
    }

    #[test]
    fn empty_chart_still_draws() {
        let c = Chart {
            series: vec![],
            hlines: vec![],
            ..chart(true, true)
        };
        let svg = render_svg(&c).unwrap();
        assert!(svg.contains("Fmax vs cluster size"));
        assert_eq!(svg.matches("<circle").count(), 0);
    }

    #[test]
    fn ranges_and_ticks() {
        assert_eq!(axis_range(&[], false, true), (0.0, 1.0));
        let (lo, hi) = axis_range(&[10.0, 20.0], false, true);
        assert_eq!(lo, 0.0);
        assert!(hi > 20.0);
        let (lo, hi) = axis_range(&[32.0, 8192.0, 0.0, f64::NAN], true, false);
        assert!(lo > 0.0 && lo < 32.0 && hi > 8192.0);
        assert_eq!(tick_label(2000.0), "2K");
        assert_eq!(tick_label(32.0), "32");
        assert_eq!(tick_label(150.0), "150");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(0.9999999999), "1");
        assert_eq!(tick_label(1500.0), "1500");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(log_tick_label(300.0, true), "");
        assert_eq!(log_tick_label(500.0, true), "500");
        assert_eq!(log_tick_label(2000.0, true), "2K");
        assert_eq!(log_tick_label(300.0, false), "300");
    }
}
