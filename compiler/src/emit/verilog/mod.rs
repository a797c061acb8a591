//! Verilog emission from askama templates in `rtl-templates/`.

pub mod rice;
pub mod sax;
pub mod track;
pub mod values;
pub mod xpath;
