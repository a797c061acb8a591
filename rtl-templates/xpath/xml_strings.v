    // ---- Strings of the XML grammar (rtl-templates/xpath/xml_strings.v,
    // ---- included by qrtl_sax and qrtl_wide_sax) ----

    // The byte of a string at pos (0 past its end), the string right-aligned
    // in `word` with length len.
    // (A case on pos over the string's bytes: word and len are constants,
    // so only the compares with pos remain, no subtraction and shift.)
    function [7:0] str_at(input [79:0] word, input [3:0] len, input [3:0] pos);
        integer q, n;
        begin
            n = {28'd0, len};
            str_at = 8'd0;
            for (q = 0; q < 10; q = q + 1)
                if (q < n && pos == q[3:0]) str_at = word[((q < n) ? n - 1 - q : 0)*8 +: 8];
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
