//! Verilog emission from the askama templates in `rtl-templates/xpath/`.
//! Emitters see only IR, never syntax trees.

pub mod generic;
pub mod ns;
pub mod sax;
pub mod values;
pub mod wide;
pub mod xpath;
