//! Binary stimulus and results files shared by the C++ driver
//! (`sim/axis_driver.cpp`) and the Icarus test bench (`sim/axis_tb.v`).
//! All integers are little-endian.
//!
//! Stimulus, documents only: `QRTLSTM1`, `u32` packet count, then per
//! packet `u32` length and the bytes. Zero-length packets are not allowed
//! (AXI4-Stream cannot send them).
//!
//! Stimulus with configuration packets (a design with a configuration
//! stream, [`super::CfgStream`]): `QRTLSTM2`, `u32` packet count, `u32`
//! document count (the packets with stream byte 0: the results file's
//! packet count), then per packet a stream byte (0 document, 1
//! configuration), `u32` length and the bytes. Packets are sent in file
//! order, each after the previous one's last beat was accepted. A run
//! without configuration packets is always written as `QRTLSTM1`.
//!
//! Results: `QRTLRES1`, `u32` packet count, then records:
//! `'W' u32` a result word of the current packet (`tdata` of at most 32
//! bits); `'B' u32 n` and `n` bytes, a result beat of a wider `tdata`
//! (little-endian, `n = ceil(bits / 8)`); `'P' u64` end of the
//! packet (tlast) with its latency in cycles; `'T' u64 u64 u64` run totals
//! (cycles, input-stall cycles, output-stall cycles), the last record.

use super::{PacketResult, SimRun};

pub const STIMULUS_MAGIC: &[u8; 8] = b"QRTLSTM1";
pub const STEPS_MAGIC: &[u8; 8] = b"QRTLSTM2";
pub const RESULTS_MAGIC: &[u8; 8] = b"QRTLRES1";

/// The input stream a stimulus packet goes to; its value is the packet's
/// stream byte in a `QRTLSTM2` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamId {
    /// The document stream (`s_axis`): one result packet each.
    Document = 0,
    /// The configuration stream (`s_cfg`): no result.
    Config = 1,
}

/// Encode packets as a stimulus file: `QRTLSTM1` when all are documents,
/// else `QRTLSTM2`. The caller has rejected empty packets and packet counts
/// or lengths beyond `u32`.
pub fn encode_stimulus(packets: &[(StreamId, &[u8])]) -> Vec<u8> {
    let steps = packets.iter().any(|(s, _)| *s != StreamId::Document);
    let total: usize = packets.iter().map(|(_, p)| p.len() + 5).sum();
    let mut out = Vec::with_capacity(16 + total);
    out.extend_from_slice(if steps { STEPS_MAGIC } else { STIMULUS_MAGIC });
    out.extend_from_slice(&(packets.len() as u32).to_le_bytes());
    if steps {
        let docs = packets
            .iter()
            .filter(|(s, _)| *s == StreamId::Document)
            .count();
        out.extend_from_slice(&(docs as u32).to_le_bytes());
    }
    for (stream, p) in packets {
        if steps {
            out.push(*stream as u8);
        }
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
    out
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.at + n > self.b.len() {
            return Err(format!("truncated at byte {}", self.at));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// Decode a results file; `expected_packets` is the stimulus' packet count,
/// `beat_bytes` the bytes of a result beat (`ceil(tdata bits / 8)`).
pub fn decode_results(
    bytes: &[u8],
    expected_packets: usize,
    beat_bytes: usize,
) -> Result<SimRun, String> {
    let mut r = Reader { b: bytes, at: 0 };
    if r.take(8)? != RESULTS_MAGIC {
        return Err("not a qrtl results file (magic QRTLRES1)".into());
    }
    let n = r.u32()? as usize;
    if n != expected_packets {
        return Err(format!("{n} packets, the stimulus has {expected_packets}"));
    }
    let mut packets = Vec::with_capacity(n);
    let mut words = Vec::new();
    let mut beats = Vec::new();
    loop {
        let at = r.at;
        match r.take(1)?[0] {
            b'W' => {
                let w = r.u32()?;
                if beat_bytes > 4 {
                    return Err(format!(
                        "a 32-bit word at byte {at} in {beat_bytes}-byte beats"
                    ));
                }
                words.push(w);
                beats.push(w.to_le_bytes()[..beat_bytes].to_vec());
            }
            b'B' => {
                let n = r.u32()? as usize;
                if n != beat_bytes {
                    return Err(format!(
                        "a {n}-byte beat at byte {at}, expected {beat_bytes} bytes"
                    ));
                }
                let beat = r.take(n)?.to_vec();
                let mut low = [0u8; 4];
                let m = n.min(4);
                low[..m].copy_from_slice(&beat[..m]);
                words.push(u32::from_le_bytes(low));
                beats.push(beat);
            }
            b'P' => {
                let cycles = r.u64()?;
                packets.push(PacketResult {
                    words: std::mem::take(&mut words),
                    beats: std::mem::take(&mut beats),
                    cycles,
                });
            }
            b'T' => {
                let run = SimRun {
                    packets,
                    total_cycles: r.u64()?,
                    input_stall_cycles: r.u64()?,
                    output_stall_cycles: r.u64()?,
                };
                if !words.is_empty() {
                    return Err("result words after the last packet's tlast".into());
                }
                if run.packets.len() != n {
                    return Err(format!(
                        "{} packet results, expected {n}",
                        run.packets.len()
                    ));
                }
                if r.at != bytes.len() {
                    return Err(format!("{} trailing bytes", bytes.len() - r.at));
                }
                return Ok(run);
            }
            other => return Err(format!("unknown record {other:#04x} at byte {at}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stimulus_layout() {
        let doc = StreamId::Document;
        let s = encode_stimulus(&[(doc, &[1, 2, 3]), (doc, &[0xff])]);
        assert_eq!(
            s,
            b"QRTLSTM1\x02\0\0\0\x03\0\0\0\x01\x02\x03\x01\0\0\0\xff".to_vec()
        );
        let s = encode_stimulus(&[(StreamId::Config, &[7, 8]), (doc, &[0xff])]);
        assert_eq!(
            s,
            b"QRTLSTM2\x02\0\0\0\x01\0\0\0\x01\x02\0\0\0\x07\x08\0\x01\0\0\0\xff".to_vec()
        );
    }

    #[test]
    fn wide_beats() {
        let mut b = b"QRTLRES1\x01\0\0\0B\x05\0\0\0".to_vec();
        b.extend_from_slice(&[1, 2, 3, 4, 5]);
        b.push(b'P');
        b.extend_from_slice(&3u64.to_le_bytes());
        b.push(b'T');
        for v in [9u64, 0, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let run = decode_results(&b, 1, 5).unwrap();
        assert_eq!(run.packets[0].beats, vec![vec![1, 2, 3, 4, 5]]);
        assert_eq!(run.packets[0].words, vec![0x0403_0201]);
        assert!(decode_results(&b, 1, 6).unwrap_err().contains("expected 6"));
    }

    #[test]
    fn results_roundtrip_and_errors() {
        let mut b = b"QRTLRES1\x02\0\0\0".to_vec();
        b.push(b'W');
        b.extend_from_slice(&7u32.to_le_bytes());
        b.push(b'W');
        b.extend_from_slice(&9u32.to_le_bytes());
        b.push(b'P');
        b.extend_from_slice(&5u64.to_le_bytes());
        b.push(b'P');
        b.extend_from_slice(&1u64.to_le_bytes());
        b.push(b'T');
        for v in [100u64, 3, 4] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let run = decode_results(&b, 2, 4).unwrap();
        assert_eq!(run.packets[0].words, vec![7, 9]);
        assert_eq!(run.packets[0].cycles, 5);
        assert_eq!(run.packets[1].words, Vec::<u32>::new());
        assert_eq!(
            (
                run.total_cycles,
                run.input_stall_cycles,
                run.output_stall_cycles
            ),
            (100, 3, 4)
        );
        assert!(decode_results(&b, 3, 4)
            .unwrap_err()
            .contains("stimulus has 3"));
        assert!(decode_results(&b[..b.len() - 1], 2, 4)
            .unwrap_err()
            .contains("truncated"));
        let mut extra = b.clone();
        extra.push(0);
        assert!(decode_results(&extra, 2, 4)
            .unwrap_err()
            .contains("trailing"));
        assert!(decode_results(b"QRTLRES1\x00\0\0\0X", 0, 4)
            .unwrap_err()
            .contains("unknown record"));
    }
}
