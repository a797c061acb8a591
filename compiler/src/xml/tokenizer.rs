// (being written by the tokenizer helper)
use super::{Sink, XmlConfig, XmlErrorAt};

pub struct Tokenizer { _config: XmlConfig }

impl Tokenizer {
    pub fn new(config: XmlConfig) -> Tokenizer { Tokenizer { _config: config } }
    pub fn reset(&mut self) {}
    pub fn feed<S: Sink>(&mut self, _bytes: &[u8], _sink: &mut S) {}
    pub fn finish<S: Sink>(&mut self, _sink: &mut S) -> Result<(), XmlErrorAt> { Ok(()) }
    pub fn error(&self) -> Option<XmlErrorAt> { None }
}

pub fn tokenize<S: Sink>(config: XmlConfig, doc: &[u8], sink: &mut S) -> Result<(), XmlErrorAt> {
    let mut t = Tokenizer::new(config);
    t.feed(doc, sink);
    t.finish(sink)
}
