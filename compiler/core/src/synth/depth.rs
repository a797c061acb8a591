//! Logic depth of a mapped netlist, before place and route: for every
//! register, RAM and output-port input of the core, the LUT levels on its
//! deepest combinational path from a register, a RAM output or an input
//! port. Deep cones are where nextpnr's critical paths come from, so
//! `qrtl synth` prints the deepest ones (with the register names the
//! emitters chose) while place and route is still to run.
//!
//! The delay model counts levels, not nanoseconds: a LUT is one level; the
//! ECP5 wide-function muxes (PFUMX, L6MUX21) half a level each; a carry
//! cell one level from its LUT inputs and none along the carry chain; a
//! LUTRAM's asynchronous read one level from its read address. Cells this
//! table does not know are sequential: their outputs start paths and their
//! inputs (clocks excepted) end them.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// How many of the deepest inputs are listed.
pub const DEEPEST: usize = 10;

/// One input at the end of a deep path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeepInput {
    /// LUT levels on the deepest path into it.
    pub levels: f64,
    /// What it is: `q3_col2[0] (TRELLIS_FF DI)`, `port m_axis_tdata[3]`.
    pub sink: String,
    /// Where that path starts (a register's or a port's net name).
    pub from: String,
}

/// The depth of one module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogicDepth {
    /// `(levels, inputs)`: how many register, RAM and output-port inputs
    /// have their deepest path at that many levels, shallow first.
    pub histogram: Vec<(f64, u64)>,
    /// The deepest paths, deepest first ([`DEEPEST`] at most).
    pub deepest: Vec<DeepInput>,
    /// Combinational loops met (each broken where it was found).
    pub loops: u64,
}

impl LogicDepth {
    /// The deepest level (0 for a design without logic).
    pub fn max_levels(&self) -> f64 {
        self.histogram.last().map_or(0.0, |h| h.0)
    }

    /// One line for people: the deepest input and how many share its depth.
    pub fn line(&self) -> String {
        let total: u64 = self.histogram.iter().map(|h| h.1).sum();
        match (self.deepest.first(), self.histogram.last()) {
            (Some(d), Some(&(lv, n))) => format!(
                "deepest input {} LUT levels: {} from {} ({n} of {total} inputs at {} levels)",
                levels_text(lv),
                d.sink,
                d.from,
                levels_text(lv)
            ),
            _ => format!("no combinational logic in front of {total} inputs"),
        }
    }
}

fn levels_text(l: f64) -> String {
    if l.fract() == 0.0 {
        format!("{l:.0}")
    } else {
        format!("{l:.1}")
    }
}

/// A combinational cell type: its outputs, and each input's cost in half
/// levels (`None`: the input does not reach the outputs combinationally).
struct Comb {
    outputs: &'static [&'static str],
    cost: fn(&str) -> Option<u32>,
}

fn comb(cell_type: &str) -> Option<Comb> {
    Some(match cell_type {
        "LUT4" => Comb {
            outputs: &["Z"],
            cost: |_| Some(2),
        },
        "PFUMX" | "L6MUX21" => Comb {
            outputs: &["Z"],
            cost: |_| Some(1),
        },
        "CCU2C" => Comb {
            outputs: &["S0", "S1", "COUT"],
            cost: |p| Some(if p == "CIN" { 0 } else { 2 }),
        },
        "TRELLIS_DPR16X4" => Comb {
            outputs: &["DO"],
            cost: |p| p.starts_with("RAD").then_some(2),
        },
        "SB_LUT4" => Comb {
            outputs: &["O"],
            cost: |_| Some(2),
        },
        "SB_CARRY" => Comb {
            outputs: &["CO"],
            cost: |_| Some(0),
        },
        "LUT1" | "LUT2" | "LUT3" | "LUT5" | "LUT6" | "INV" => Comb {
            outputs: &["O"],
            cost: |_| Some(2),
        },
        "MUXF7" | "MUXF8" => Comb {
            outputs: &["O"],
            cost: |_| Some(1),
        },
        _ => return None,
    })
}

/// Clock inputs end no data path.
fn is_clock(pin: &str) -> bool {
    pin.contains("CLK") || pin == "C" || pin == "WCK" || pin == "CK"
}

/// The parts of a Yosys JSON netlist (`write_json`) the depth reads; the
/// rest (attributes, parameters) is skipped while parsing, so a netlist
/// of tens of MB costs about its cells' connections in memory, not a tree
/// of JSON values several times the file's size.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Netlist {
    modules: BTreeMap<String, NetModule>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NetModule {
    ports: BTreeMap<String, NetPort>,
    cells: BTreeMap<String, NetCell>,
    netnames: BTreeMap<String, NetName>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NetPort {
    direction: Option<Dir>,
    bits: Bits,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NetCell {
    #[serde(rename = "type")]
    ty: String,
    port_directions: BTreeMap<String, Dir>,
    connections: BTreeMap<String, Bits>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NetName {
    bits: Bits,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Dir {
    Input,
    Output,
    Inout,
}

/// The bits of a port, connection or net: a net number, or `None` for a
/// constant (`"0"`, `"1"`, `"x"`, `"z"`).
#[derive(Debug, Default)]
struct Bits(Vec<Option<u64>>);

impl Bits {
    /// The nets, constants skipped.
    fn nets(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().filter_map(|b| *b)
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bit(Option<u64>);
        impl<'de> Deserialize<'de> for Bit {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = Bit;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a net number or a constant bit")
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bit, E> {
                        Ok(Bit(Some(v)))
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<Bit, E> {
                        Ok(Bit(None))
                    }
                }
                d.deserialize_any(V)
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bits;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of bits")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Bits, A::Error> {
                let mut v = Vec::with_capacity(s.size_hint().unwrap_or(1));
                while let Some(Bit(b)) = s.next_element()? {
                    v.push(b);
                }
                Ok(Bits(v))
            }
        }
        d.deserialize_seq(V)
    }
}

impl Netlist {
    /// Parse a Yosys JSON netlist.
    pub fn parse(bytes: &[u8]) -> Result<Netlist, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// Depth of `module` in a Yosys JSON netlist.
pub fn logic_depth(netlist: &Netlist, module: &str) -> Result<LogicDepth, String> {
    let m = netlist
        .modules
        .get(module)
        .ok_or_else(|| format!("no module `{module}` in the netlist"))?;
    let (cells, ports, netnames) = (&m.cells, &m.ports, &m.netnames);

    // A readable name per bit: the shortest name Yosys did not make up
    // (`$abc$…`), nor derive from the cells around it
    // (`st_TRELLIS_FF_Q_DI_LUT4_Z…`), if it has one.
    let derived = |n: &str| {
        [
            "_TRELLIS_",
            "_LUT4_",
            "_CCU2C_",
            "_PFUMX_",
            "_L6MUX21_",
            "_SB_",
        ]
        .iter()
        .any(|c| n.contains(c))
    };
    let mut name: HashMap<u64, String> = HashMap::new();
    let mut rank: HashMap<u64, (bool, bool, usize)> = HashMap::new();
    for (n, v) in netnames {
        let bs = &v.bits.0;
        let key = (n.starts_with('$'), derived(n), n.len());
        for (i, b) in bs.iter().enumerate() {
            let Some(b) = *b else { continue };
            if rank.get(&b).is_none_or(|r| key < *r) {
                rank.insert(b, key);
                name.insert(
                    b,
                    if bs.len() > 1 {
                        format!("{n}[{i}]")
                    } else {
                        n.clone()
                    },
                );
            }
        }
    }
    let bit_name = |b: u64| name.get(&b).cloned().unwrap_or_else(|| format!("bit {b}"));

    // The combinational cells, their inputs with costs, and who drives what.
    struct Node {
        inputs: Vec<(u64, u32)>,
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut driver: HashMap<u64, usize> = HashMap::new();
    // (cell name, type, pin, bit) of every input that ends a path.
    let mut sinks: Vec<(String, String, String, u64)> = Vec::new();
    for (cname, c) in cells {
        let (ty, conns, dirs) = (c.ty.as_str(), &c.connections, &c.port_directions);
        let is_input = |p: &str| dirs.get(p) == Some(&Dir::Input);
        match comb(ty) {
            Some(k) => {
                let id = nodes.len();
                let mut inputs = Vec::new();
                for (p, v) in conns {
                    if is_input(p) {
                        if let Some(cost) = (k.cost)(p) {
                            inputs.extend(v.nets().map(|b| (b, cost)));
                        } else {
                            // A LUTRAM's write side: registered, ends a path.
                            sinks
                                .extend(v.nets().map(|b| (cname.clone(), ty.into(), p.clone(), b)));
                        }
                    }
                }
                for o in k.outputs {
                    for b in conns.get(*o).into_iter().flat_map(Bits::nets) {
                        driver.insert(b, id);
                    }
                }
                nodes.push(Node { inputs });
            }
            None => {
                // The register a flip-flop input belongs to is named by its Q.
                let q = ["Q", "O"]
                    .iter()
                    .find_map(|p| conns.get(*p).and_then(|v| v.nets().next()));
                for (p, v) in conns {
                    if is_input(p) && !is_clock(p) {
                        let who = q.map_or_else(|| cname.clone(), &bit_name);
                        sinks.extend(v.nets().map(|b| (who.clone(), ty.into(), p.clone(), b)));
                    }
                }
            }
        }
    }
    for (p, v) in ports {
        if v.direction == Some(Dir::Output) {
            for b in v.bits.nets() {
                sinks.push((bit_name(b), "port".into(), p.clone(), b));
            }
        }
    }

    // Depth of every combinational cell in half levels, with the bit its
    // deepest path starts from: an iterative depth-first walk.
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; nodes.len()];
    let mut depth: Vec<(u32, u64)> = vec![(0, 0); nodes.len()];
    let mut loops = 0u64;
    let at = |depth: &[(u32, u64)], b: u64, driver: &HashMap<u64, usize>| match driver.get(&b) {
        Some(&n) => depth[n],
        None => (0, b),
    };
    for root in 0..nodes.len() {
        if state[root] != NEW {
            continue;
        }
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if state[n] == NEW {
                state[n] = OPEN;
                for &(b, _) in &nodes[n].inputs {
                    if let Some(&d) = driver.get(&b) {
                        match state[d] {
                            NEW => stack.push(d),
                            OPEN => loops += 1,
                            _ => {}
                        }
                    }
                }
                continue;
            }
            stack.pop();
            if state[n] == DONE {
                continue;
            }
            let mut best = (0u32, nodes[n].inputs.first().map_or(0, |i| i.0));
            for &(b, cost) in &nodes[n].inputs {
                // An input still open is a loop: counted above, taken as 0.
                let (d, from) = match driver.get(&b) {
                    Some(&m) if state[m] != DONE => (0, b),
                    _ => at(&depth, b, &driver),
                };
                if d + cost > best.0 {
                    best = (d + cost, from);
                }
            }
            depth[n] = best;
            state[n] = DONE;
        }
    }

    let mut hist: HashMap<u32, u64> = HashMap::new();
    let mut ends: Vec<(u32, String, String)> = Vec::with_capacity(sinks.len());
    for (who, ty, pin, b) in sinks {
        let (d, from) = at(&depth, b, &driver);
        *hist.entry(d).or_default() += 1;
        let sink = if ty == "port" {
            format!("port {who}")
        } else {
            format!("{who} ({ty} {pin})")
        };
        ends.push((d, sink, bit_name(from)));
    }
    let mut histogram: Vec<(f64, u64)> = hist
        .into_iter()
        .map(|(d, n)| (f64::from(d) / 2.0, n))
        .collect();
    histogram.sort_by(|a, b| a.0.total_cmp(&b.0));
    ends.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    // A bus into one pin (a RAM's data) is listed once, at its deepest bit.
    let mut seen = std::collections::HashSet::new();
    let deepest = ends
        .into_iter()
        .filter(|e| seen.insert(e.1.clone()))
        .take(DEEPEST)
        .map(|(d, sink, from)| DeepInput {
            levels: f64::from(d) / 2.0,
            sink,
            from,
        })
        .collect();
    Ok(LogicDepth {
        histogram,
        deepest,
        loops,
    })
}
