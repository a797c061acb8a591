//! The SAX parser module (`rtl-templates/sax.v`).
