-- | Stand-in for the @Card@ module of the COMP30020 2016 project handout, written by mine
-- from the handout's facts: suits and ranks in Eq, Ord, Bounded, Enum, Show and Read
-- (one character each, 10 shown as T), cards shown rank then suit, enumerated clubs
-- first, each suit from 2 to ace; cards are not in Ord (a player must not need it).
module Card (Suit (..), Rank (..), Card (..)) where

import Data.List (elemIndex)

data Suit = Club | Diamond | Heart | Spade
  deriving (Eq, Ord, Bounded, Enum)

data Rank = R2 | R3 | R4 | R5 | R6 | R7 | R8 | R9 | R10 | Jack | Queen | King | Ace
  deriving (Eq, Ord, Bounded, Enum)

data Card = Card {suit :: Suit, rank :: Rank}
  deriving (Eq, Bounded)

suitChars, rankChars :: String
suitChars = "CDHS"
rankChars = "23456789TJQKA"

instance Enum Card where
  fromEnum (Card s r) = fromEnum s * 13 + fromEnum r
  toEnum n = Card (toEnum (n `div` 13)) (toEnum (n `mod` 13))
  enumFrom c = enumFromTo c maxBound
  enumFromThen c d = enumFromThenTo c d (if fromEnum d >= fromEnum c then maxBound else minBound)

instance Show Suit where
  show s = take 1 (drop (fromEnum s) suitChars)

instance Show Rank where
  show r = take 1 (drop (fromEnum r) rankChars)

instance Show Card where
  show (Card s r) = show r ++ show s

instance Read Suit where
  readsPrec _ = oneOf suitChars

instance Read Rank where
  readsPrec _ = oneOf rankChars

instance Read Card where
  readsPrec _ text = [(Card s r, rest) | (r, afterRank) <- reads text, (s, rest) <- reads afterRank]

oneOf :: Enum e => String -> String -> [(e, String)]
oneOf chars (c : rest) = [(toEnum i, rest) | Just i <- [elemIndex c chars]]
oneOf _ [] = []
