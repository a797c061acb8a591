//! Value comparators (`rtl-templates/vcmp.v`).
