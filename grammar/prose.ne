# The OpenProse grammar (the dialect of ../shared/spec/DIALECT.md).
#
# The parser is fed one top-level statement at a time (see src/phases/1-parse/parser.ts) by a
# token stream that already holds NEWLINE / INDENT / DEDENT. Keywords are contextual: a grammar
# literal such as "session" matches a `name` token with that text, and %name matches any name.
#
# Rules for keeping this grammar fast: lists are left-recursive cons lists flattened once by their
# owner, postprocessors are O(1) and never mutate their input, and there is no ambiguity (a test
# asserts exactly one parse of every corpus program).

@preprocessor typescript

@{%
import * as b from "./build.js";
import { tokenStream, ref, target, adjacentParen } from "./grammar-support.js";
%}

@lexer tokenStream

Chunk -> Statements                                       {% ([list]) => b.flatten(list) %}

Statements -> Statement                                   {% ([s]) => b.cons(null, s) %}
            | Statements Statement                        {% ([list, s]) => b.cons(list, s) %}

Block -> %NEWLINE %INDENT Statements %DEDENT              {% ([, , list]) => b.body(list) %}

# ---------------------------------------------------------------------------------------------
# Statements: simple ones end with NEWLINE, compound ones with the DEDENT of their block.
# ---------------------------------------------------------------------------------------------

Statement -> Simple %NEWLINE                              {% id %}
           | Compound                                     {% id %}

Simple -> "use" %string                                   {% ([k, s]) => b.use(k, s, null) %}
        | "use" %string "as" %name                        {% ([k, s, , a]) => b.use(k, s, a) %}
        | "import" %string "from" %string                 {% ([k, skill, , source]) => b.importStatement(k, skill, source) %}
        | "input" %name ":" %string                       {% ([k, n, , p]) => b.input(k, n, p) %}
        | "input" %name ":" %discretion                   {% ([k, n, , p]) => b.input(k, n, p) %}
        | "output" %name "=" Expr                         {% ([k, n, , v]) => b.output(k, n, v) %}
        | "output" Expr                                   {% ([k, v]) => b.output(k, null, v) %}
        | Declaration %name "=" Expr                      {% ([d, n, , v]) => b.binding(d, d, n, v) %}
        | %target "=" Expr                                {% ([n, , v]) => b.binding(n, null, n, v) %}
        | "throw"                                         {% ([k]) => b.throwStatement(k, null) %}
        | "throw" Expr                                    {% ([k, m]) => b.throwStatement(k, m) %}
        | "assert" Expr                                   {% ([k, t]) => b.assertStatement(k, t, null) %}
        | Expr                                            {% ([e]) => b.expressionStatement(e) %}

Compound -> "agent" %name ":" Properties                  {% ([k, n, , p]) => b.agent(k, n, p) %}
          | "block" %name Params BlockModifiers ":" Block {% ([k, n, p, m, , body]) => b.block(k, n, p, m, body) %}
          | "output" %name "=" BlockExpr                  {% ([k, n, , v]) => b.output(k, n, v) %}
          | "output" BlockExpr                            {% ([k, v]) => b.output(k, null, v) %}
          | Declaration %name "=" BlockExpr               {% ([d, n, , v]) => b.binding(d, d, n, v) %}
          | %target "=" BlockExpr                         {% ([n, , v]) => b.binding(n, null, n, v) %}
          | If                                            {% id %}
          | "choice" %discretion ":" %NEWLINE %INDENT Options %DEDENT
                                                          {% ([k, c, , , , o]) => b.choice(k, c, o) %}
          | "assert" Expr ":" %NEWLINE %INDENT %string %NEWLINE %DEDENT
                                                          {% ([k, t, , , , m]) => b.assertStatement(k, t, m) %}
          | BlockExpr                                     {% ([e]) => b.expressionStatement(e) %}

Declaration -> "let" {% id %} | "const" {% id %}

Params -> null                                            {% () => null %}
        | "(" ")"                                         {% () => null %}
        | "(" NameList ")"                                {% ([, list]) => list %}

NameList -> %name                                         {% ([n]) => b.cons(null, n) %}
          | NameList "," %name                            {% ([list, , n]) => b.cons(list, n) %}

BlockModifiers -> null                                    {% () => null %}
                | "(" KeyedModifierList ")"               {% ([, list]) => list %}

If -> IfClauses                                           {% ([c]) => b.ifStatement(c, null) %}
    | IfClauses "else" ":" Block                          {% ([c, , , body]) => b.ifStatement(c, body) %}

IfClauses -> "if" Expr ":" Block                          {% ([k, t, , body]) => b.cons(null, b.ifClause(k, t, body)) %}
           | IfClauses "elif" Expr ":" Block              {% ([list, k, t, , body]) => b.cons(list, b.ifClause(k, t, body)) %}

Options -> Option                                         {% ([o]) => b.cons(null, o) %}
         | Options Option                                 {% ([list, o]) => b.cons(list, o) %}

Option -> "option" %string ":" Block                      {% ([k, label, , body]) => b.choiceOption(k, label, body) %}

# ---------------------------------------------------------------------------------------------
# Properties (agents, sessions, block-form context)
# ---------------------------------------------------------------------------------------------

Properties -> %NEWLINE %INDENT PropertyList %DEDENT       {% ([, , list]) => b.propertyBlock(list) %}

PropertyList -> Property                                  {% ([p]) => b.cons(null, p) %}
              | PropertyList Property                     {% ([list, p]) => b.cons(list, p) %}

Property -> %name ":" Expr %NEWLINE                       {% ([k, , v]) => b.property(k, v) %}
          | %name ":" Properties                          {% ([k, , v]) => b.property(k, v) %}

# ---------------------------------------------------------------------------------------------
# Block-valued expressions: they end with the DEDENT of their block.
# ---------------------------------------------------------------------------------------------

BlockExpr -> BlockExprBase                                {% id %}
           | Arrow "->" BlockExprBase                     {% ([l, , r]) => b.arrow(l, r) %}

BlockExprBase -> SessionHead Properties                   {% ([h, p]) => b.withProperties(h, p.properties) %}
               | "session" Properties                     {% ([k, p]) => b.session(k, null, null, null, k, p.properties) %}
               | "resume" ":" %name Properties            {% ([k, , a, p]) => b.resume(k, a, p.properties) %}
               | "parallel" Modifiers ":" Block           {% ([k, m, , body]) => b.parallel(k, m, body) %}
               | "repeat" Expr ":" Block                  {% ([k, n, , body]) => b.repeat(k, n, null, body) %}
               | "repeat" Expr "as" %name ":" Block       {% ([k, n, , i, , body]) => b.repeat(k, n, i, body) %}
               | ForHead Modifiers ":" Block              {% ([h, m, , body]) => b.forEach(h.first, h.parallel, h.item, h.index, h.collection, m, body) %}
               | "loop" LoopCondition Modifiers LoopIndex ":" Block
                                                          {% ([k, c, m, i, , body]) => b.loop(k, c, m, i, body) %}
               | "try" ":" Block                          {% ([k, , body]) => b.tryExpression(k, body, null, null) %}
               | "try" ":" Block Catch                    {% ([k, , body, c]) => b.tryExpression(k, body, c, null) %}
               | "try" ":" Block Finally                  {% ([k, , body, f]) => b.tryExpression(k, body, null, f) %}
               | "try" ":" Block Catch Finally            {% ([k, , body, c, f]) => b.tryExpression(k, body, c, f) %}
               | "do" ":" Block                           {% ([k, , body]) => b.doBlock(k, body) %}
               | Or Stages                                {% ([source, stages]) => b.pipeline(source, stages) %}
               | Or %NEWLINE %INDENT Stages %DEDENT       {% ([source, , , stages]) => b.pipeline(source, stages) %}

ForHead -> "for" ForNames "in" Expr                       {% ([k, n, , c]) => ({ first: k, parallel: false, item: n.item, index: n.index, collection: c }) %}
         | "parallel" "for" ForNames "in" Expr            {% ([k, , n, , c]) => ({ first: k, parallel: true, item: n.item, index: n.index, collection: c }) %}

ForNames -> %name                                         {% ([item]) => ({ item, index: null }) %}
          | %name "," %name                               {% ([item, , index]) => ({ item, index }) %}

LoopCondition -> null                                     {% () => null %}
               | "until" Expr                             {% ([m, t]) => b.loopCondition(m, t) %}
               | "while" Expr                             {% ([m, t]) => b.loopCondition(m, t) %}

LoopIndex -> null                                         {% () => null %}
           | "as" %name                                   {% ([, n]) => n %}

Catch -> "catch" ":" Block                                {% ([k, , body]) => b.catchClause(k, null, body) %}
       | "catch" "as" %name ":" Block                     {% ([k, , n, , body]) => b.catchClause(k, n, body) %}

Finally -> "finally" ":" Block                            {% ([, , body]) => body %}

Stages -> Stage                                           {% ([s]) => b.cons(null, s) %}
        | Stages Stage                                    {% ([list, s]) => b.cons(list, s) %}

Stage -> "|" PipeOperator ":" Block                       {% ([bar, op, , body]) => b.pipeStage(bar, op, null, body) %}
       | "|" "reduce" "(" NameList ")" ":" Block          {% ([bar, op, , params, , , body]) => b.pipeStage(bar, op, params, body) %}

PipeOperator -> "map" {% id %} | "filter" {% id %} | "pmap" {% id %}

Modifiers -> null                                         {% () => null %}
           | "(" ModifierList ")"                         {% ([, list]) => list %}

ModifierList -> Modifier                                  {% ([m]) => b.cons(null, m) %}
              | ModifierList "," Modifier                 {% ([list, , m]) => b.cons(list, m) %}

Modifier -> Expr                                          {% ([v]) => b.modifier(null, v) %}
          | KeyedModifier                                 {% id %}

KeyedModifierList -> KeyedModifier                        {% ([m]) => b.cons(null, m) %}
                   | KeyedModifierList "," KeyedModifier  {% ([list, , m]) => b.cons(list, m) %}

KeyedModifier -> %name ":" Expr                           {% ([k, , v]) => b.modifier(k, v) %}

# ---------------------------------------------------------------------------------------------
# Inline expressions, lowest precedence first.
# ---------------------------------------------------------------------------------------------

Expr -> Arrow                                             {% id %}

Arrow -> Arrow "->" Or                                    {% ([l, , r]) => b.arrow(l, r) %}
       | Or                                               {% id %}

Or -> Or "or" And                                         {% ([l, o, r]) => b.binary(l, o, r) %}
    | And                                                 {% id %}

And -> And "and" Not                                      {% ([l, o, r]) => b.binary(l, o, r) %}
     | Not                                                {% id %}

Not -> "not" Not                                          {% ([o, e]) => b.unary(o, e) %}
     | Comparison                                         {% id %}

Comparison -> Sum CompareOperator Sum                     {% ([l, o, r]) => b.binary(l, o, r) %}
            | Sum                                         {% id %}

CompareOperator -> "==" {% id %} | "!=" {% id %} | "<" {% id %} | "<=" {% id %} | ">" {% id %} | ">=" {% id %} | "is" {% id %}

Sum -> Sum "+" Product                                    {% ([l, o, r]) => b.binary(l, o, r) %}
     | Sum "-" Product                                    {% ([l, o, r]) => b.binary(l, o, r) %}
     | Product                                            {% id %}

Product -> Product "*" Unary                              {% ([l, o, r]) => b.binary(l, o, r) %}
         | Product "/" Unary                              {% ([l, o, r]) => b.binary(l, o, r) %}
         | Unary                                          {% id %}

Unary -> "-" Unary                                        {% ([o, e]) => b.unary(o, e) %}
       | Postfix                                          {% id %}

Postfix -> Postfix "." %name                              {% ([o, , p]) => b.member(o, p) %}
         | Postfix "[" Expr "]"                           {% ([o, , i, close]) => b.index(o, i, close) %}
         | Primary                                        {% id %}

Primary -> %ref                                           {% ([n]) => b.identifier(n) %}
         | %string                                        {% ([s]) => b.string(s) %}
         | %number                                        {% ([n]) => b.number(n) %}
         | %discretion                                    {% ([d]) => b.discretion(d) %}
         | "true"                                         {% ([t]) => b.boolean(t) %}
         | "false"                                        {% ([t]) => b.boolean(t) %}
         | "null"                                         {% ([t]) => b.nullLiteral(t) %}
         | "[" "]"                                        {% ([o, c]) => b.array(o, null, c) %}
         | "[" ExprList OptionalComma "]"                 {% ([o, list, , c]) => b.array(o, list, c) %}
         | "{" "}"                                        {% ([o, c]) => b.object(o, null, c) %}
         | "{" Entries OptionalComma "}"                  {% ([o, list, , c]) => b.object(o, list, c) %}
         | "(" Expr ")"                                   {% ([, e]) => e %}
         | SessionHead                                    {% id %}
         | "resume" ":" %name                             {% ([k, , a]) => b.resume(k, a) %}
         | "do" %name                                     {% ([k, n]) => b.doCall(k, n, null, null) %}
         | "do" %name "(" ")"                             {% ([k, n, , c]) => b.doCall(k, n, null, c) %}
         | "do" %name "(" ExprList OptionalComma ")"      {% ([k, n, , args, , c]) => b.doCall(k, n, args, c) %}
         | %ref %adjacentParen ")"                        {% ([n, , c]) => b.programCall(n, null, c) %}
         | %ref %adjacentParen NamedArguments OptionalComma ")"
                                                          {% ([n, , args, , c]) => b.programCall(n, args, c) %}

SessionHead -> "session" %string                          {% ([k, p]) => b.session(k, null, null, p, p) %}
             | "session" ":" %name                        {% ([k, , a]) => b.session(k, null, a, null, a) %}
             | "session" %name ":" %name                  {% ([k, n, , a]) => b.session(k, n, a, null, a) %}

ExprList -> Expr                                          {% ([e]) => b.cons(null, e) %}
          | ExprList "," Expr                             {% ([list, , e]) => b.cons(list, e) %}

Entries -> Entry                                          {% ([e]) => b.cons(null, e) %}
         | Entries "," Entry                              {% ([list, , e]) => b.cons(list, e) %}

Entry -> %name                                            {% ([k]) => b.entry(b.identifier(k), null) %}
       | %name ":" Expr                                   {% ([k, , v]) => b.entry(b.identifier(k), v) %}
       | %string ":" Expr                                 {% ([k, , v]) => b.entry(b.string(k), v) %}

NamedArguments -> NamedArgument                           {% ([a]) => b.cons(null, a) %}
                | NamedArguments "," NamedArgument        {% ([list, , a]) => b.cons(list, a) %}

NamedArgument -> %name ":" Expr                           {% ([n, , v]) => b.namedArgument(n, v) %}

OptionalComma -> null | ","
