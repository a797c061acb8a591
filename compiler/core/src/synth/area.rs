//! Area from Yosys `stat -json`: logic LUTs, flip-flops, LUTs used as
//! distributed RAM or shift registers, block RAMs, per target family.
//!
//! Pure functions of the cell counts, so every mapping rule is tested on
//! data (`tests/synth_area/`) without running a tool.

use std::collections::BTreeMap;

use super::Target;

/// Cell counts of one module (or of the whole design), by cell type.
pub type CellCounts = BTreeMap<String, u64>;

/// What a netlist occupies, in the target's own units.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Area {
    /// LUTs doing logic (Xilinx LUT1–LUT6 and INV; ECP5 LUT4 plus two per
    /// CCU2C carry cell; iCE40 SB_LUT4).
    pub luts: u64,
    /// `luts` plus the LUTs occupied by distributed RAM and shift registers.
    pub lut_eq: u64,
    /// Flip-flops.
    pub ffs: u64,
    /// LUTs occupied by distributed RAM and shift registers.
    pub lutram: u64,
    /// Block RAM tiles as the vendor counts them: Xilinx 36 Kbit tiles
    /// (a RAMB18 is half a tile), ECP5 18 Kbit EBRs, iCE40 4 Kbit blocks.
    pub bram: f64,
    /// Cell types no rule knows, with their counts (they are not in any
    /// figure above; reported so nothing is dropped silently).
    pub unknown: CellCounts,
}

/// How one cell type counts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Lut(u64),
    Ff,
    LutRam(u64),
    Bram(f64),
    /// Routing-only or carry cells with no LUT of their own (MUXF7, CARRY4,
    /// PFUMX, SB_CARRY, IO buffers, ...).
    Free,
}

fn xilinx_role(cell: &str) -> Option<Role> {
    use Role::*;
    Some(match cell {
        "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" | "INV" => Lut(1),
        "LUT6_2" => Lut(1),
        "FDRE" | "FDSE" | "FDCE" | "FDPE" | "FDRE_1" | "FDSE_1" | "FDCE_1" | "FDPE_1" | "LDCE"
        | "LDPE" => Ff,
        // Distributed RAM: the LUTs of the SLICEM each primitive fills
        // (UG474 tables 2-1..2-3; Virtex-6 UG364 the same).
        "RAM32X1S" | "RAM64X1S" | "RAM32X1S_1" | "RAM64X1S_1" | "RAM16X1S" => LutRam(1),
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" | "RAM16X1D" => LutRam(2),
        "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => LutRam(4),
        "RAM32M16" | "RAM64M8" => LutRam(8),
        "SRL16E" | "SRLC16E" | "SRLC32E" => LutRam(1),
        "RAMB18E1" | "RAMB18E2" | "RAMB18" => Bram(0.5),
        "RAMB36E1" | "RAMB36E2" | "RAMB36" => Bram(1.0),
        "MUXF7" | "MUXF8" | "MUXF9" | "CARRY4" | "CARRY8" | "IBUF" | "OBUF" | "BUFG" | "IOBUF"
        | "OBUFT" | "VCC" | "GND" | "DSP48E1" | "DSP48E2" => Free,
        _ => return None,
    })
}

fn ecp5_role(cell: &str) -> Option<Role> {
    use Role::*;
    Some(match cell {
        "LUT4" => Lut(1),
        // A CCU2C carry cell is the two LUT4s of a slice.
        "CCU2C" => Lut(2),
        "TRELLIS_FF" => Ff,
        // A 16x4 distributed RAM fills three slices: two of RAM (4 LUT4s)
        // and the write-port slice (SLICEC), whose two LUTs are lost.
        "TRELLIS_DPR16X4" => LutRam(6),
        "DP16KD" | "PDPW16KD" => Bram(1.0),
        "PFUMX" | "L6MUX21" | "TRELLIS_IO" | "DCCA" | "VHI" | "VLO" | "MULT18X18D" | "ALU54B" => {
            Free
        }
        _ => return None,
    })
}

fn ice40_role(cell: &str) -> Option<Role> {
    use Role::*;
    Some(match cell {
        "SB_LUT4" => Lut(1),
        c if c.starts_with("SB_DFF") => Ff,
        "SB_RAM40_4K" | "SB_RAM40_4KNR" | "SB_RAM40_4KNW" | "SB_RAM40_4KNRNW" => Bram(1.0),
        "SB_SPRAM256KA" => Bram(1.0),
        "SB_CARRY" | "SB_IO" | "SB_GB" | "SB_GB_IO" | "SB_MAC16" => Free,
        _ => return None,
    })
}

fn role(target: Target, cell: &str) -> Option<Role> {
    match target {
        Target::Xc6v | Target::Xc7 => xilinx_role(cell),
        Target::Ecp5 => ecp5_role(cell),
        Target::Ice40 => ice40_role(cell),
    }
}

/// The area of `cells` (one module's or the design's counts) on `target`.
/// `$scopeinfo` and other `$`-cells Yosys keeps for bookkeeping are free;
/// instances of `submodules` (kept hierarchy) are skipped, their cells are
/// counted where the caller adds them.
pub fn area(target: Target, cells: &CellCounts, submodules: &[&str]) -> Area {
    let mut a = Area::default();
    let mut bram = 0.0;
    for (cell, &n) in cells {
        if cell.starts_with('$') || submodules.contains(&cell.as_str()) {
            continue;
        }
        match role(target, cell) {
            Some(Role::Lut(k)) => a.luts += k * n,
            Some(Role::Ff) => a.ffs += n,
            Some(Role::LutRam(k)) => a.lutram += k * n,
            Some(Role::Bram(b)) => bram += b * n as f64,
            Some(Role::Free) => {}
            None => {
                a.unknown.insert(cell.clone(), n);
            }
        }
    }
    a.bram = bram;
    a.lut_eq = a.luts + a.lutram;
    a
}

/// Cell counts of `module` in a Yosys `stat -json` document (`None` when
/// absent), or of the whole design for `module == None`.
pub fn cell_counts(stat: &serde_json::Value, module: Option<&str>) -> Option<CellCounts> {
    let node = match module {
        None => stat.get("design")?,
        Some(m) => stat
            .get("modules")?
            .get(format!("\\{m}"))
            .or_else(|| stat.get("modules")?.get(m))?,
    };
    let by_type = node.get("num_cells_by_type")?.as_object()?;
    Some(
        by_type
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> CellCounts {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn xilinx_distributed_ram_counts_the_luts_it_fills() {
        let a = area(
            Target::Xc6v,
            &counts(&[
                ("LUT2", 10),
                ("LUT6", 5),
                ("INV", 1),
                ("RAM32M", 3),
                ("SRLC32E", 2),
                ("FDRE", 7),
                ("FDSE", 1),
                ("RAMB18E1", 1),
                ("RAMB36E1", 2),
                ("CARRY4", 4),
                ("MUXF7", 2),
                ("$scopeinfo", 9),
            ]),
            &[],
        );
        assert_eq!((a.luts, a.lutram, a.lut_eq, a.ffs), (16, 14, 30, 8));
        assert_eq!(a.bram, 2.5);
        assert!(a.unknown.is_empty());
    }

    #[test]
    fn ecp5_carry_cells_are_two_luts_and_dpram_six() {
        let a = area(
            Target::Ecp5,
            &counts(&[
                ("LUT4", 100),
                ("CCU2C", 4),
                ("TRELLIS_DPR16X4", 2),
                ("TRELLIS_FF", 50),
                ("DP16KD", 1),
                ("PFUMX", 9),
            ]),
            &[],
        );
        assert_eq!((a.luts, a.lutram, a.lut_eq, a.ffs), (108, 12, 120, 50));
        assert_eq!(a.bram, 1.0);
    }

    #[test]
    fn unknown_cells_are_reported_not_dropped() {
        let a = area(
            Target::Ice40,
            &counts(&[("SB_LUT4", 3), ("SB_DFFR", 2), ("MYSTERY", 1), ("core", 1)]),
            &["core"],
        );
        assert_eq!((a.luts, a.ffs), (3, 2));
        assert_eq!(a.unknown, counts(&[("MYSTERY", 1)]));
    }

    #[test]
    fn cell_counts_reads_design_and_modules() {
        let stat = serde_json::json!({
            "modules": {"\\core": {"num_cells_by_type": {"LUT4": 4}}},
            "design": {"num_cells_by_type": {"LUT4": 5, "TRELLIS_FF": 16}}
        });
        assert_eq!(
            cell_counts(&stat, None),
            Some(counts(&[("LUT4", 5), ("TRELLIS_FF", 16)]))
        );
        assert_eq!(
            cell_counts(&stat, Some("core")),
            Some(counts(&[("LUT4", 4)]))
        );
        assert_eq!(cell_counts(&stat, Some("nope")), None);
    }
}
