-- | Stand-in for @src/TwentyOne/Types.hs@ of the FIT2102 2021 TwentyOne code bundle,
-- written by mine from the course's facts: the types a player sees and their instances
-- (the game's own records, which a player never sees, are left out).
module TwentyOne.Types where

import Cards
import Control.DeepSeq (NFData (rnf), rwhnf)
import Data.Function (on)

type Points = Int

type PlayerId = String

-- | Things that belong to a player.
class Identify a where
  getId :: a -> PlayerId

-- | Things that carry points.
class Pointable a where
  getPoints :: a -> Points

-- | A player's decision: the dealer's up card (Nothing on the bidding call), every
-- player's points, the latest cards of every player, the player's id, its memory
-- (Nothing on its first call of a game) and its hand; the action and the new memory.
type PlayFunc =
  Maybe Card ->
  [PlayerPoints] ->
  [PlayerInfo] ->
  PlayerId ->
  Maybe String ->
  Hand ->
  (Action, String)

-- | The latest cards of a player (the dealer's id is "dealer").
data PlayerInfo = PlayerInfo
  { _playerInfoId :: PlayerId,
    playerInfoHand :: Hand
  }

instance Eq PlayerInfo where
  (==) = (==) `on` getId

instance Identify PlayerInfo where
  getId = _playerInfoId

instance Show PlayerInfo where
  show (PlayerInfo pid h) = show pid ++ " " ++ show h

-- | A player's points.
data PlayerPoints = PlayerPoints
  { _playerPointsId :: PlayerId,
    _playerPoints :: Points
  }

instance Identify PlayerPoints where
  getId = _playerPointsId

instance Pointable PlayerPoints where
  getPoints = _playerPoints

instance Show PlayerPoints where
  show (PlayerPoints pid p) = "(" ++ show pid ++ " " ++ show p ++ ")"

-- | The actions; the amounts are what the action costs.
data Action
  = Bid Points
  | Hit
  | Stand
  | DoubleDown Points
  | Split Points
  | Insurance Points
  deriving (Show)

-- | Actions compare by kind (and a bid by its amount).
instance Eq Action where
  Bid a == Bid b = a == b
  Hit == Hit = True
  Stand == Stand = True
  DoubleDown _ == DoubleDown _ = True
  Split _ == Split _ = True
  Insurance _ == Insurance _ = True
  _ == _ = False

instance NFData Action where
  rnf = rwhnf

-- | A hand's class, ordered as the game ranks them.
data HandValue = Bust | Value Points | Charlie | Combo
  deriving (Eq, Ord)

instance Show HandValue where
  show Bust = "Bust"
  show (Value p) = show p ++ "P"
  show Charlie = "Charlie"
  show Combo = "Combo"
