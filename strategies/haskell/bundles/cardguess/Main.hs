-- | mine's driver for a card-guessing `Proj1.hs`, like the handout's Proj1test: one
-- request a line on stdin, one reply a line on stdout, `ok <answer> <ns>` with the
-- nanoseconds the request took, or `error <reason>`. Cards are the handout's notation
-- (rank then suit: 3C, TH, AS) joined by `+`.
--
-- > initial N               ->  ok GUESS NS      (a new game of N cards)
-- > next C L R H S          ->  ok GUESS NS      (the feedback to the last guess)
-- > feedback ANSWER GUESS   ->  ok C L R H S NS
module Main (main) where

import Card (Card (Card))
import Data.Char (ord)
import Data.List (elemIndex, foldl', intercalate)
import GHC.Clock (getMonotonicTimeNSec)
import Proj1 (GameState, feedback, initialGuess, nextGuess)
import System.IO (BufferMode (LineBuffering), hSetBuffering, isEOF, stdout)
import Text.Read (readMaybe)

main :: IO ()
main = hSetBuffering stdout LineBuffering >> loop Nothing

loop :: Maybe ([Card], GameState) -> IO ()
loop game = do
  done <- isEOF
  if done
    then pure ()
    else do
      line <- getLine
      started <- getMonotonicTimeNSec
      let (reply, game') = answer game (words line)
      _ <- pure $! foldl' (\acc c -> acc + ord c) 0 (either id id reply)
      ended <- getMonotonicTimeNSec
      putStrLn (either ("error " ++) (\r -> "ok " ++ r ++ " " ++ show (ended - started)) reply)
      loop game'

answer :: Maybe ([Card], GameState) -> [String] -> (Either String String, Maybe ([Card], GameState))
answer game request = case request of
  ["initial", n] -> case readMaybe n of
    Just size -> played (initialGuess size)
    Nothing -> (Left ("not a number: " ++ n), game)
  ["next", c, l, r, h, s] -> case (game, traverse readMaybe [c, l, r, h, s]) of
    (Just previous, Just [c', l', r', h', s']) -> played (nextGuess previous (c', l', r', h', s'))
    (Nothing, _) -> (Left "next before initial", game)
    _ -> (Left "feedback must be five numbers", game)
  ["feedback", target, guess] -> case (readCards target, readCards guess) of
    (Just t, Just g) -> (Right (numbers (feedback t g)), game)
    _ -> (Left "not cards", game)
  _ -> (Left "expected: initial N | next C L R H S | feedback ANSWER GUESS", game)
  where
    played (guess, state) = (Right (guessText guess), Just (guess, state))
    guessText guess = if null guess then "." else intercalate "+" (map cardText guess)
    numbers (a, b, c, d, e) = unwords (map show [a, b, c, d, e])

rankChars, suitChars :: String
rankChars = "23456789TJQKA"
suitChars = "CDHS"

cardText :: Card -> String
cardText (Card s r) = take 1 (drop (fromEnum r) rankChars) ++ take 1 (drop (fromEnum s) suitChars)

readCards :: String -> Maybe [Card]
readCards = traverse readCard . splitPlus
  where
    readCard [r, s] = do
      r' <- elemIndex r rankChars
      s' <- elemIndex s suitChars
      lookup (r', s') [((fromEnum rank, fromEnum suit), Card suit rank) | suit <- [minBound .. maxBound], rank <- [minBound .. maxBound]]
    readCard _ = Nothing
    splitPlus text = case break (== '+') text of
      (part, _ : rest) -> part : splitPlus rest
      (part, []) -> [part]
