-- | mine's driver for a TwentyOne `Player.hs`: the player imported `safe`, as the course's
-- Main does, and called once per line of stdin (see Protocol):
--
-- > play UP POINTS INFOS ID MEMORY HAND  ->  ok ACTION AMOUNT MEMORY NS
--
-- UP is a card or `-`; POINTS `id=points` entries and INFOS `id=cards` entries, each
-- joined by `/` (`.` for none), ids as texts; MEMORY a text or `-`.
module Main (main) where

import Protocol
import TwentyOne.Types (Action (..), PlayerInfo (PlayerInfo), PlayerPoints (PlayerPoints))
import safe Player (playCard)

main :: IO ()
main = serve answer

answer :: [String] -> Either String String
answer ["play", up, points, infos, pid, memory, hand] = do
  upcard <- if up == "-" then Right Nothing else Just <$> readCard up
  points' <- entries points >>= traverse (\(i, p) -> PlayerPoints i <$> readNumber p)
  infos' <- entries infos >>= traverse (\(i, cs) -> PlayerInfo i <$> readCards cs)
  pid' <- readText pid
  memory' <- readMaybeText memory
  hand' <- readCards hand
  let (action, memoryOut) = playCard upcard points' infos' pid' memory' hand'
  pure (actionText action ++ " " ++ textField memoryOut)
answer _ = Left "expected: play UP POINTS INFOS ID MEMORY HAND"

-- | `id=value` entries joined by `/`, `.` for none.
entries :: String -> Either String [(String, String)]
entries "." = Right []
entries text = traverse entry (splitOn '/' text)
  where
    entry e = case break (== '=') (drop 1 e) of
      (_, []) -> Left ("not an entry: " ++ e)
      (name, _ : value) -> (\i -> (i, value)) <$> readText (take 1 e ++ name)

actionText :: Action -> String
actionText action = case action of
  Bid n -> "Bid " ++ show n
  Hit -> "Hit 0"
  Stand -> "Stand 0"
  DoubleDown n -> "DoubleDown " ++ show n
  Split n -> "Split " ++ show n
  Insurance n -> "Insurance " ++ show n
