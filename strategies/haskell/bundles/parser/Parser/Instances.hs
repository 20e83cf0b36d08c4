-- | Stand-in for @src/Parser/Instances.hs@ of the FIT2102 code bundles (TwentyOne 2021,
-- Gin Rummy 2020), written by mine from the course's facts: the parser type, its result
-- and errors, and their Functor, Applicative and Monad instances.
module Parser.Instances where

-- | What a parser reads.
type Input = String

-- | Why a parse failed.
data ParseError
  = UnexpectedEof
  | ExpectedEof Input
  | UnexpectedChar Char
  | UnexpectedString String
  deriving (Eq, Show)

-- | A parse's outcome: an error, or the input left over and the value read.
data ParseResult a
  = Error ParseError
  | Result Input a
  deriving (Eq)

instance Show a => Show (ParseResult a) where
  show (Error e) = "Error: " ++ show e
  show (Result rest a) = "Result >" ++ rest ++ "< " ++ show a

instance Functor ParseResult where
  fmap _ (Error e) = Error e
  fmap f (Result rest a) = Result rest (f a)

-- | A parser: a function from the input to a result.
newtype Parser a = P {parse :: Input -> ParseResult a}

instance Functor Parser where
  fmap f (P p) = P (fmap f . p)

instance Applicative Parser where
  pure x = P (`Result` x)
  pf <*> px = pf >>= \f -> fmap f px

instance Monad Parser where
  P p >>= f = P $ \input -> case p input of
    Error e -> Error e
    Result rest x -> parse (f x) rest

-- | Whether a result is an error.
isErrorResult :: ParseResult a -> Bool
isErrorResult (Error _) = True
isErrorResult (Result _ _) = False
