-- | Stand-in for @src/Parser/Parser.hs@ of the FIT2102 code bundles, written by mine from
-- the course's facts: the primitive parsers the course notes build on.
module Parser.Parser where

import Parser.Instances

-- | A parser that fails on the given character.
unexpectedCharParser :: Char -> Parser a
unexpectedCharParser = P . const . Error . UnexpectedChar

-- | A parser that always fails with the given error.
failed :: ParseError -> Parser a
failed = P . const . Error

-- | One character of the input; fails at the end of the input.
character :: Parser Char
character = P next
  where
    next "" = Error UnexpectedEof
    next (c : rest) = Result rest c

-- | Exactly the given character.
is :: Char -> Parser Char
is c = character >>= \v -> if v == c then pure v else unexpectedCharParser v

-- | The first parser, or the second on the same input when the first fails.
(|||) :: Parser a -> Parser a -> Parser a
p1 ||| p2 = P $ \input -> case parse p1 input of
  Error _ -> parse p2 input
  result -> result

-- | One or more of @p@ separated by @op@, combined from the left.
chain :: Parser a -> Parser (a -> a -> a) -> Parser a
chain p op = p >>= rest
  where
    rest a = (op >>= \f -> p >>= rest . f a) ||| pure a
