-- | Stand-in for @src/Rummy/Types.hs@ of the FIT2102 2020 Gin Rummy code bundle, written
-- by mine from the course's facts: the types a player sees and their instances (the
-- game's own records, which a player never sees, are left out).
module Rummy.Types where

import Cards
import Control.DeepSeq (NFData (rnf), rwhnf)

type Score = Int

-- | A player's declaration of its final hand.
data Meld
  = Deadwood Card
  | Set3 Card Card Card
  | Set4 Card Card Card Card
  | Straight3 Card Card Card
  | Straight4 Card Card Card Card
  | Straight5 Card Card Card Card Card

instance NFData Meld where
  rnf = rwhnf

-- | Where a card is drawn from.
data Draw = Stock | Discard

instance NFData Draw where
  rnf = rwhnf

-- | A discard and what the player announces with it.
data Action = Action Act Card

data Act = Gin | Knock | Drop
  deriving (Show)

instance NFData Action where
  rnf = rwhnf

-- | The draw: the discard pile's top card, the scores (mine, the opponent's) as of the
-- last round, the memory (Nothing on the first call of a game), the opponent's draw this
-- round (Nothing before it has drawn) and the hand; the draw and the new memory.
type ActionFunc =
  Card -> (Score, Score) -> Maybe String -> Maybe Draw -> [Card] -> (Draw, String)

-- | The discard: the card drawn, the scores, the memory and the hand without the card
-- drawn; the discard with the announcement, and the new memory.
type PlayFunc = Card -> (Score, Score) -> String -> [Card] -> (Action, String)

-- | The declaration at the end of a round: the scores, the memory and the final hand.
type MeldFunc = (Score, Score) -> String -> [Card] -> [Meld]
