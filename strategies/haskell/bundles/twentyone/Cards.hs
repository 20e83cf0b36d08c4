-- | Stand-in for @src/Cards.hs@ of the FIT2102 2021 TwentyOne code bundle, written by mine
-- from the course's facts: the card types and their instances.
module Cards where

import Control.DeepSeq (NFData (rnf), rwhnf)

-- | The four suits, in the bundle's order.
data Suit = Spade | Club | Diamond | Heart
  deriving (Eq, Ord, Enum, Bounded)

instance Show Suit where
  show Spade = "S"
  show Club = "C"
  show Diamond = "D"
  show Heart = "H"

-- | Ranks, ace low.
data Rank = Ace | Two | Three | Four | Five | Six | Seven | Eight | Nine | Ten
  | Jack | Queen | King
  deriving (Eq, Ord, Enum, Bounded)

instance Show Rank where
  show r = case r of
    Ace -> "A"
    Two -> "2"
    Three -> "3"
    Four -> "4"
    Five -> "5"
    Six -> "6"
    Seven -> "7"
    Eight -> "8"
    Nine -> "9"
    Ten -> "T"
    Jack -> "J"
    Queen -> "Q"
    King -> "K"

-- | A card: its suit and its rank.
data Card = Card Suit Rank
  deriving (Eq)

instance Show Card where
  show (Card s r) = show s ++ show r

instance NFData Card where
  rnf = rwhnf

-- | Cards order by suit, then by rank.
instance Ord Card where
  compare (Card s1 r1) (Card s2 r2) = compare s1 s2 <> compare r1 r2

-- | A player's cards.
type Hand = [Card]

-- | A card's rank.
getRank :: Card -> Rank
getRank (Card _ r) = r
