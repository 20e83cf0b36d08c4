-- | Stand-in for @src/Cards.hs@ of the FIT2102 2020 Gin Rummy code bundle, written by mine
-- from the course's facts: the card types and their instances (no Show: the bundle has
-- none, so a player must not need one).
module Cards where

import Control.DeepSeq (NFData (rnf), rwhnf)

-- | The four suits, in the bundle's order.
data Suit = Spade | Club | Diamond | Heart
  deriving (Eq, Ord, Enum, Bounded)

-- | Ranks, ace low.
data Rank = Ace | Two | Three | Four | Five | Six | Seven | Eight | Nine | Ten
  | Jack | Queen | King
  deriving (Eq, Ord, Enum, Bounded)

-- | A card: its suit and its rank.
data Card = Card Suit Rank
  deriving (Eq)

instance NFData Card where
  rnf = rwhnf

-- | Cards order by suit, then by rank.
instance Ord Card where
  compare (Card s1 r1) (Card s2 r2) = compare s1 s2 <> compare r1 r2
