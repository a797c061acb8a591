    // ---- Strings of the XML grammar (rtl-templates/xpath/xml_strings.v,
    // ---- included by qrtl_sax and qrtl_wide_sax) ----

    // The byte of a string at pos (0 past its end), the string right-aligned
    // in `word` with length len.
    function [7:0] str_at(input [79:0] word, input [3:0] len, input [3:0] pos);
        reg [6:0] at;
        begin
            at = {len - 4'd1 - pos, 3'b000};
            str_at = (pos < len) ? word[at +: 8] : 8'd0;
        end
    endfunction

    // The XML declaration's `version`, `encoding`, `standalone` (attr 0, 1,
    // 2; xml/decl.rs `KEYWORDS`): the keyword's byte at pos, and whether it
    // is the last.
    function [8:0] kw_at(input [1:0] attr, input [3:0] pos);
        begin
            case (attr)
                2'd0: kw_at = {pos == 4'd6, str_at("version", 4'd7, pos)};
                2'd1: kw_at = {pos == 4'd7, str_at("encoding", 4'd8, pos)};
                default: kw_at = {pos == 4'd9, str_at("standalone", 4'd10, pos)};
            endcase
        end
    endfunction
