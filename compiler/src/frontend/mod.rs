//! Front ends: text in, syntax trees and diagnostics out. They never see IR.

pub mod flextrack;
pub mod xpath;
