"""The commands the LaTeX allowlist names (``latex_allowlist.py`` reads values against them)."""

from __future__ import annotations

_WORDS = str.split

#: Accents and letters: the spellings BibTeX styles and bibliographies use for non-ASCII text.
LETTER_COMMANDS = frozenset(
    _WORDS("""
    u v H c d b t r k i j o O l L ss SS ae AE oe OE aa AA dh DH th TH ng NG dj DJ
""")
)
#: Symbols that print one character (LaTeX kernel and textcomp).
SYMBOL_COMMANDS = frozenset(
    _WORDS("""
    textbackslash textbraceleft textbraceright textasciicircum textasciitilde textless textgreater textbar
    textendash textemdash textquoteleft textquoteright textquotedblleft textquotedblright textquotesingle
    textellipsis ldots dots textregistered texttrademark textcopyright copyright S P dag ddag pounds
    textdegree textpm texttimes textmu textperiodcentered textbullet textunderscore textdollar textsterling
    texteuro textsection textparagraph textdagger textdaggerdbl guillemotleft guillemotright
    guilsinglleft guilsinglright quotedblbase quotesinglbase textexclamdown textquestiondown
""")
)
#: Text formatting, spacing, names and links: commands whose only effect is how text prints.
FORMATTING_COMMANDS = frozenset(
    _WORDS("""
    emph textit textbf textsc texttt textrm textsf textup textmd textnormal textsl textsuperscript
    textsubscript underline mbox em it bf sc tt rm sf sl upshape itshape bfseries scshape mdseries
    normalfont ttfamily rmfamily sffamily tiny scriptsize footnotesize small normalsize large Large
    quad qquad enspace thinspace space nobreakspace slash newline par relax protect ensuremath char
    url href doi cite citet citep TeX LaTeX LaTeXe ifmmode else fi
""")
)
#: biblatex's text commands, which biblatex's own example files use in fields.
BIBLATEX_COMMANDS = frozenset(
    _WORDS("""
    hyphen mkbibquote mkbibemph mkbibitalic mkbibbold mkbibparens mkbibbrackets mkbibsuperscript enquote
    bibstring psq psqq pno ppno nopp adddot addcomma addspace addperiod addcolon addsemicolon arabic
""")
)
#: Commands a .bib's @preamble conventionally defines (BibTeX's own documentation's sorting tricks).
PREAMBLE_COMMANDS = frozenset(_WORDS("noopsort printfirst singleletter switchargs"))
#: Math symbols and constructs (harmless anywhere: outside math they only stop the document).
MATH_COMMANDS = frozenset(
    _WORDS("""
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi
    rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma
    Upsilon Phi Psi Omega
    times cdot pm mp div le leq ge geq neq ne approx sim simeq cong equiv propto ll gg infty partial nabla
    sum prod int oint lim log ln exp sin cos tan max min sup inf det arg deg to rightarrow leftarrow
    Rightarrow Leftarrow leftrightarrow Leftrightarrow mapsto uparrow downarrow in notin ni subset subseteq
    supset supseteq cup cap setminus emptyset varnothing forall exists neg lnot land lor wedge vee oplus
    otimes odot circ bullet star ast dagger ell hbar Re Im prime cdots vdots ddots backslash
    frac dfrac tfrac sqrt binom mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol
    operatorname text left right big Big bigg Bigg bigl bigr Bigl Bigr langle rangle lfloor rfloor lceil
    rceil vert Vert mid perp parallel angle triangle square hat bar tilde vec dot ddot widehat widetilde
    overline underbrace overbrace limits nolimits displaystyle textstyle scriptstyle
""")
)
#: Control symbols (a backslash and one non-letter): accents, escaped specials, spacing, line breaks.
CONTROL_SYMBOLS = frozenset("'\"^`~=.&%$#_{} ,;:!-/@\\\n\r\t|")
#: Primitives and commands that read or write files, run programs, change how TeX reads its input or
#: build command names: no setting can allow them (a surveytool.toml travels with a repository too).
NEVER_ALLOWED = frozenset(
    _WORDS("""
    write immediate input include InputIfFileExists IfFileExists openin openout read readline closein closeout
    endinput scantokens csname endcsname expandafter string detokenize noexpand catcode lccode uccode
    def edef gdef xdef let futurelet newcommand renewcommand providecommand DeclareRobustCommand
    special pdfliteral directlua latelua ShellEscape write18 pdffiledump pdfximage pdfobj pdfannot
    verbatiminput lstinputlisting includegraphics usepackage RequirePackage makeatletter begin end verb
""")
)
TEXT_COMMANDS = LETTER_COMMANDS | SYMBOL_COMMANDS | FORMATTING_COMMANDS | BIBLATEX_COMMANDS | PREAMBLE_COMMANDS
#: Commands whose first argument is a link target: only web addresses pass (no run:, file:, paths).
LINK_COMMANDS = frozenset({"url", "href"})

#: Math commands that work in text too; every other math command stops the document outside math.
TEXT_AND_MATH = frozenset(_WORDS("text kern ensuremath"))
#: Text commands that stop the document in math (\TeX sets the space factor; a paragraph cannot end in math).
TEXT_ONLY = frozenset(_WORDS("TeX LaTeX LaTeXe par"))
#: How many arguments a command needs, and their mode: "t" text, "m" math, "s" the mode around it.
#: Before a "}" (or at the end of a value) TeX stops ("Argument of \\' has an extra }").
_ACCENTS = "' \" ^ ` ~ = . u v H c d b t r k"
ARGUMENTS: dict[str, tuple[int, str]] = {
    **dict.fromkeys(_WORDS(_ACCENTS), (1, "s")),
    **dict.fromkeys(
        _WORDS("""
        emph textit textbf textsc texttt textrm textsf textup textmd textnormal textsl textsuperscript
        textsubscript mbox text fbox mkbibquote mkbibemph mkbibitalic mkbibbold mkbibparens
        mkbibbrackets mkbibsuperscript enquote bibstring
        """),
        (1, "t"),
    ),
    **dict.fromkeys(_WORDS("underline url cite citet citep doi"), (1, "s")),
    "href": (2, "s"),
    **dict.fromkeys(
        _WORDS("""
        ensuremath sqrt mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol
        operatorname hat bar tilde vec dot ddot acute widehat widetilde overline underbrace overbrace mathbin
        """),
        (1, "m"),
    ),
    **dict.fromkeys(_WORDS("frac dfrac tfrac binom stackrel"), (2, "m")),
}
#: Commands whose argument is a number, a length or a counter's name: anything else stops the document.
NUMBER_ARGUMENT = frozenset({"char", "mathchar", "kern", "hspace", "arabic"})
#: The counters every standard class defines (\arabic{x} of another stops the document).
COUNTERS = frozenset(
    _WORDS("page part section subsection subsubsection paragraph subparagraph equation figure table footnote")
)
