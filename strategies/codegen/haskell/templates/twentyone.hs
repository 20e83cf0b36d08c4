-- PROVENANCE: these comment lines are replaced by the generated header.
module Player (playCard) where

-- The FIT2102 2021 TwentyOne player of `mine generate twentyone --lang
-- haskell`. It decides exactly as the Python file of the same table:
-- `actionFor` is the chart (main, insured and split hands, with the cells
-- that change with the true count), `chooseBid` the bid at each true count,
-- and the memory keeps the shoe's Hi-Lo count from round to round. The
-- memory is written as text and read back with the bundle's parser
-- combinators (`Parser.Parser`, `Parser.Instances`), as the course asks; a
-- memory it did not write starts afresh rather than failing the game.

import Cards (Card (Card), Rank (..))
import Data.Bits (setBit, testBit)
import Data.List (foldl')
import qualified Data.Map as Map
import Data.Maybe (fromMaybe)
import Parser.Instances (ParseResult (Error, Result), Parser, parse)
import Parser.Parser (character, is, unexpectedCharParser, (|||))
import TwentyOne.Types
  ( Action (..),
    PlayFunc,
    PlayerInfo (PlayerInfo),
    PlayerPoints (PlayerPoints),
    Points,
  )

-- | A cell of the chart whose action changes with the true count: a hand
-- cell (context, up card, soft, cards - 2, total), a split cell (context,
-- up card, pair value) or an insurance cell (soft, pair, total).
data CountCell
  = HandCell Int Int Int Int Int
  | SplitCell Int Int Int
  | InsureCell Int Int Int
  deriving (Eq, Ord)

-- The fitted table, by name: `decks`, `minBid`, `maxBid` as learned from
-- the logs; `tcLimit`, the largest true count the table tells apart;
-- `canInsure`, `doubleOn21`, `doubleAfterSplit`, the actions the logs show
-- the game allows; `handRows`, HAND[context][up][soft][cards - 2] flattened,
-- one character per total (S stand, H hit, D double); `splitRows`,
-- SPLIT[context][up] flattened, one character per pair value (P splits);
-- `insureRows`, INSURE[2 * soft + pair], one character per total (1
-- insures); `bidRows`, the bid at each true count from -tcLimit to tcLimit;
-- `byCount`, the cells whose action changes with the count, one action per
-- true count; `fullTable`, the players dealt in from which the shoe decides
-- insurance, `insureAbove`, the chance of a ten-valued hole card (numerator,
-- denominator) above which it is taken. The definitions from here to the end marker are written by
-- `mine generate` from the fitted table.
-- BEGIN DATA

decks :: Int
decks = 3

minBid :: Points
minBid = 10

maxBid :: Points
maxBid = 100

tcLimit :: Int
tcLimit = 1

canInsure :: Bool
canInsure = True

doubleOn21 :: Bool
doubleOn21 = True

doubleAfterSplit :: Bool
doubleAfterSplit = True

handRows :: [String]
handRows = replicate 264 "HHHHHHHHHHHHHHHHHSSSSSSSSSSSSSSS"

splitRows :: [String]
splitRows = replicate 33 "-----------"

insureRows :: [String]
insureRows = replicate 4 "00000000000000000000000000000000"

bidRows :: [Points]
bidRows = [10, 10, 10]

byCount :: [(CountCell, String)]
byCount = [(HandCell 0 10 0 0 16, "HSS")]

-- END DATA

-- | The memory: cards dealt from the current shoe before this round, their
-- Hi-Lo count and the ten-valued ones among them; bit i of `active` set if player i (in the points'
-- order) bid this round; this round's bid; where the round is; whether the
-- main hand was insured or split.
data Memory = Memory
  { dealt :: Int,
    running :: Int,
    tens :: Int,
    active :: Integer,
    stake :: Int,
    phase :: Phase,
    insured :: Bool,
    wasSplit :: Bool
  }

-- | First decision of the round, playing on, or owing a Hit / a Stand at
-- that many cards after a DoubleDown.
data Phase = First | Playing | OweHit Int | OweStand Int
  deriving (Eq)

-- | What the chart says: insure, split, double down, hit or stand.
data Choice = TakeInsurance | SplitPair | Double | HitMore | StandHere
  deriving (Eq)

-- | A hand as the chart reads it: context (0 main, 1 insured, 2 split),
-- the up card's value (1 an ace .. 10), total, soft (0 or 1), cards, pair
-- rank (0: not a pair).
data Situation = Situation Int Int Int Int Int Int

shoeSize :: Int
shoeSize = 52 * decks

memoryLimit :: Int
memoryLimit = 10000

tensInShoe :: Int
tensInShoe = 16 * decks

fresh :: Memory
fresh = Memory 0 0 0 0 0 Playing False False

-- | Bid on the bidding call (no up card), else play the hand by the chart.
playCard :: PlayFunc
playCard upcard points infos pid memory hand = case upcard of
  Nothing -> (Bid amount, showMemory bidding)
    where
      counted = countRound remembered points infos
      amount = chooseBid counted mine
      bidders = foldl' setBit 0 [k | (k, p) <- zip [0 ..] points, rich p]
      bidding = counted {active = bidders, stake = amount, phase = First}
  Just (Card _ upRank) -> (action, showMemory next)
    where
      start = fromMaybe fresh {phase = First} remembered
      (action, next) = decide start upRank mine hand (length points)
  where
    remembered = memory >>= readMemory
    mine = case [p | PlayerPoints i p <- points, i == pid] of
      p : _ -> p
      [] -> 0
    rich (PlayerPoints _ p) = p > 0

-- | The play of a hand: a DoubleDown's Hit and Stand, else the chart's, for
-- `seats` players dealt in: from fullTable on, insurance when the shoe's
-- unseen cards say the hole card is ten-valued with a chance above
-- insureAbove, and an insured hand plays as a main hand.
decide :: Memory -> Rank -> Points -> [Card] -> Int -> (Action, Memory)
decide m upRank mine hand seats = case phase m of
  OweHit k | k == n -> (Hit, m {phase = OweStand (n + 1)})
  OweStand k | k == n -> (Stand, m {phase = Playing})
  _
    | shoeAsked && holeTenPays m hand ->
      (Insurance (b `div` 2), played {insured = True})
    | otherwise -> case choice of
        TakeInsurance -> (Insurance (b `div` 2), played {insured = True})
        SplitPair -> (Split b, played {wasSplit = True})
        Double -> (DoubleDown b, if total == 21 then played else owed)
        HitMore -> (Hit, played)
        StandHere -> (Stand, played)
  where
    n = length hand
    b = stake m
    played = m {phase = Playing}
    owed = m {phase = OweHit 2}
    (total, soft) = handValue hand
    full = seats >= fullTable
    context
      | wasSplit m = 2
      | insured m && not full = 1
      | otherwise = 0
    pair = case hand of
      [Card _ r1, Card _ r2] | r1 == r2 -> rankNumber r1
      _ -> 0
    up = min (rankNumber upRank) 10
    tc = countBucket (dealt m) (running m)
    shoeAsked =
      phase m == First && full && n == 2 && upRank == Ace && canInsure
        && mine >= b `div` 2
    -- the chart's insurance cells are a lone player's
    first = phase m == First && not shoeAsked
    situation = Situation context up total soft n pair
    choice = actionFor situation tc first (mine >= b) (mine >= b `div` 2)

-- | Whether the dealer's hole card is ten-valued with a chance above
-- insureAbove: the shoe's cards not seen (dealt before the round, in the
-- hand, the ace up) tell it.
holeTenPays :: Memory -> [Card] -> Bool
holeTenPays m hand = left * denominator > unseen * numerator
  where
    (numerator, denominator) = insureAbove
    held = length [r | Card _ r <- hand, rankNumber r >= 10]
    notSeen = shoeSize - dealt m - length hand - 1
    -- the shoe ran out in this deal: a fresh one holds the hole card
    (unseen, left)
      | notSeen <= 0 = (shoeSize - length hand - 1, tensInShoe - held)
      | otherwise = (notSeen, tensInShoe - tens m - held)

-- | The chart's action at true count `tc`; `first`: the round's first
-- decision; `canBid`: points for another bid (Split, DoubleDown);
-- `canHalf`: for half of one (Insurance).
actionFor :: Situation -> Int -> Bool -> Bool -> Bool -> Choice
actionFor (Situation context up total soft n pair) tc first canBid canHalf
  | first && two && up == 1 && canInsure && canHalf && insures =
    TakeInsurance
  | pair > 0 && canBid && splits = SplitPair
  | letter == 'D' && two && canBid && doubles = Double
  -- a two-card 21 may Hit too: the course engine asks every hand
  | letter /= 'S' = HitMore
  | otherwise = StandHere
  where
    two = n == 2
    combo = two && total == 21
    pairFlag = if pair > 0 then 1 else 0
    value = min pair 10
    k = min n 5 - 2
    insures =
      cell (InsureCell soft pairFlag total) (insureAt soft pairFlag total)
        == '1'
    splits =
      cell (SplitCell context up value) (splitOf context up value) == 'P'
    doubles =
      (context < 2 || doubleAfterSplit) && (doubleOn21 || not combo)
    letter =
      cell (HandCell context up soft k total) (handAt context up soft k total)
    cell key plain = case Map.lookup key countTable of
      Just row -> fromMaybe plain (charAt (tc + tcLimit) row)
      Nothing -> plain

handAt :: Int -> Int -> Int -> Int -> Int -> Char
handAt context up soft k total
  | k < 0 = 'S'
  | otherwise = rowChar handTable row total 'S'
  where
    row = ((context * 11 + up) * 2 + soft) * 4 + k

splitOf :: Int -> Int -> Int -> Char
splitOf context up value = rowChar splitTable (context * 11 + up) value '-'

insureAt :: Int -> Int -> Int -> Char
insureAt soft pairFlag total =
  rowChar insureTable (2 * soft + pairFlag) total '0'

rowChar :: Map.Map Int String -> Int -> Int -> Char -> Char
rowChar table row column plain =
  fromMaybe plain (Map.lookup row table >>= charAt column)

charAt :: Int -> String -> Maybe Char
charAt i text
  | i < 0 = Nothing
  | otherwise = case drop i text of
    c : _ -> Just c
    [] -> Nothing

handTable, splitTable, insureTable :: Map.Map Int String
handTable = Map.fromList (zip [0 ..] handRows)
splitTable = Map.fromList (zip [0 ..] splitRows)
insureTable = Map.fromList (zip [0 ..] insureRows)

countTable :: Map.Map CountCell String
countTable = Map.fromList byCount

bidTable :: Map.Map Int Points
bidTable = Map.fromList (zip [0 ..] bidRows)

-- | The bid at the memory's true count, within what the points allow.
chooseBid :: Memory -> Points -> Points
chooseBid m mine = max (min minBid mine) (min (min maxBid mine) wanted)
  where
    bucket = countBucket (dealt m) (running m)
    wanted = fromMaybe minBid (Map.lookup (bucket + tcLimit) bidTable)

-- | The true count (running count per deck left) rounded (half to even)
-- and clipped to ±tcLimit.
countBucket :: Int -> Int -> Int
countBucket dealtCards count =
  max (negate tcLimit) (min tcLimit (round trueCount))
  where
    left = shoeSize - dealtCards
    trueCount :: Double
    trueCount
      | left > 0 = fromIntegral count * 52.0 / fromIntegral left
      | otherwise = 0

-- | (total, soft): aces count 11 while the total stays at most 21.
handValue :: [Card] -> (Int, Int)
handValue cards = (total, if aces > 0 then 1 else 0)
  where
    (total, aces) = foldl' add (0, 0 :: Int) cards
    add (t, a) (Card _ r) = settle (t + cardPoints r, a + fromEnum (r == Ace))
    settle (t, a)
      | t > 21 && a > 0 = settle (t - 10, a - 1)
      | otherwise = (t, a)

cardPoints :: Rank -> Int
cardPoints r = if r == Ace then 11 else min (rankNumber r) 10

-- | 1 for an ace .. 13 for a king.
rankNumber :: Rank -> Int
rankNumber r = fromEnum r + 1

hiLo :: Rank -> Int
hiLo r
  | r == Ace || rankNumber r >= 10 = -1
  | rankNumber r <= 6 = 1
  | otherwise = 0

-- | The shoe after the last round: every card of the players who bid in it
-- and of the dealer (a hole card never shown still leaves the shoe), in the
-- order the engine deals: the dealer's two, each player's two, the players'
-- draws, the dealer's draws.
countRound :: Maybe Memory -> [PlayerPoints] -> [PlayerInfo] -> Memory
countRound Nothing _ _ = fresh
countRound (Just m) points infos =
  fresh {dealt = total, running = count, tens = min tenCount tensInShoe, active = active m}
  where
    ids = [i | PlayerPoints i _ <- points]
    played = [i | (k, i) <- zip [0 ..] ids, testBit (active m) k]
    (firsts, laters, dealerLater) = foldl' collect ([], [], []) infos
    collect (f, l, d) (PlayerInfo i cards)
      | i == "dealer" = (dealerTwo cards ++ f, l, drawn cards)
      | i `elem` played = (f ++ map Just (lastTwo cards), l ++ drawn cards, d)
      | otherwise = (f, l, d)
    drawn = reverse . map Just . allButTwo
    dealtNow = firsts ++ laters ++ dealerLater
    sumAll = dealt m + length dealtNow
    total = if sumAll >= shoeSize then sumAll `mod` shoeSize else sumAll
    fromFresh = drop (length dealtNow - total) dealtNow
    count
      | sumAll < shoeSize = running m + hiLoOf dealtNow
      | total > 0 = hiLoOf fromFresh
      | otherwise = 0
    tenCount
      | sumAll < shoeSize = tens m + tensOf dealtNow
      | total > 0 = tensOf fromFresh
      | otherwise = 0
    hiLoOf cards = sum [hiLo r | Just (Card _ r) <- cards]
    tensOf cards = length [r | Just (Card _ r) <- cards, rankNumber r >= 10]

lastTwo, allButTwo :: [a] -> [a]
lastTwo xs = drop (length xs - 2) xs
allButTwo xs = take (length xs - 2) xs

-- | The dealer's first two cards (the second unknown if only the up card
-- shows).
dealerTwo :: [Card] -> [Maybe Card]
dealerTwo cards = case cards of
  [c] -> [Just c, Nothing]
  _ -> map Just (lastTwo cards)

-- | The memory as text:
-- t21:dealt:count:tens:active (hex):bid:phase:insured:split.
showMemory :: Memory -> String
showMemory m =
  concat
    [ "t21:",
      show (dealt m),
      ":",
      show (running m),
      ":",
      show (tens m),
      ":",
      hex (active m),
      ":",
      show (stake m),
      ":",
      phaseText (phase m),
      ":",
      flag (insured m),
      ":",
      flag (wasSplit m)
    ]
  where
    flag b = if b then "1" else "0"
    phaseText p = case p of
      First -> "F"
      Playing -> "P"
      OweHit k -> 'H' : show k
      OweStand k -> 'S' : show k

hex :: Integer -> String
hex v
  | v < 0 = '-' : hex (negate v)
  | v < 16 = digitOf v
  | otherwise = hex (v `div` 16) ++ digitOf (v `mod` 16)
  where
    digitOf d = take 1 (drop (fromIntegral d) hexDigits)

hexDigits :: String
hexDigits = "0123456789abcdef"

-- | The memory `showMemory` wrote, or Nothing for anything else.
readMemory :: String -> Maybe Memory
readMemory text
  | length text > memoryLimit = Nothing
  | otherwise = case parse memoryP text of
    Result "" m | sane m -> Just m
    Result _ _ -> Nothing
    Error _ -> Nothing
  where
    sane m =
      dealt m < shoeSize && abs (running m) <= shoeSize
        && tens m <= min (dealt m) tensInShoe

memoryP :: Parser Memory
memoryP = do
  _ <- string "t21:"
  d <- natural 3 <* is ':'
  c <- signed <* is ':'
  t <- natural 3 <* is ':'
  a <- hexNatural <* is ':'
  b <- natural 8 <* is ':'
  p <- phaseP <* is ':'
  i <- flagP <* is ':'
  Memory d c t a b p i <$> flagP

-- | 0, or a digit 1-9 followed by at most `more` digits.
natural :: Int -> Parser Int
natural more = (0 <$ is '0') ||| positive more

positive :: Int -> Parser Int
positive more = digitsValue <$> ((:) <$> oneOf "123456789" <*> upTo more digit)

signed :: Parser Int
signed = (negate <$> (is '-' *> positive 3)) ||| natural 3

-- | 0, or a hex digit 1-f followed by at most 63 hex digits.
hexNatural :: Parser Integer
hexNatural = (0 <$ is '0') ||| (hexValue <$> ((:) <$> first <*> upTo 63 more))
  where
    first = oneOf (drop 1 hexDigits)
    more = oneOf hexDigits

phaseP :: Parser Phase
phaseP =
  (First <$ is 'F')
    ||| (Playing <$ is 'P')
    ||| (OweHit <$> (is 'H' *> owed))
    ||| (OweStand <$> (is 'S' *> owed))
  where
    owed = (digitValue <$> oneOf "23456789") ||| (is '1' *> teen)
    teen = (10 +) . digitValue <$> digit

flagP :: Parser Bool
flagP = (False <$ is '0') ||| (True <$ is '1')

string :: String -> Parser String
string = traverse is

digit :: Parser Char
digit = oneOf "0123456789"

oneOf :: String -> Parser Char
oneOf chars = do
  c <- character
  if c `elem` chars then pure c else unexpectedCharParser c

-- | At most `k` of `p`, as many as there are.
upTo :: Int -> Parser a -> Parser [a]
upTo k p
  | k <= 0 = pure []
  | otherwise = ((:) <$> p <*> upTo (k - 1) p) ||| pure []

digitValue :: Char -> Int
digitValue c = length (takeWhile (/= c) "0123456789")

digitsValue :: String -> Int
digitsValue = foldl' (\v c -> v * 10 + digitValue c) 0

hexValue :: String -> Integer
hexValue = foldl' (\v c -> v * 16 + toInteger (position c)) 0
  where
    position c = length (takeWhile (/= c) hexDigits)
